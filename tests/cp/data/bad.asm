; an assembler error: unknown instruction on line 3
[00000001]
frob $01
