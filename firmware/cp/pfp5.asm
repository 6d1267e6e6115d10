; gpuvp CP firmware for the a5xx PFP (assembled at build time: gpuvp afuc-asm -g 5).
; The PFP owns packet fetch: it runs CP_INDIRECT_BUFFER itself and forwards every other packet
; (header and payload) to the ME through the MEQ (private control register 0x0f8, see
; docs/models/cp.md). The ME runs sqe.asm assembled for a5xx.
[00000001]      ; version
[00000000]      ; jump-table offset (patched by the assembler)
boot:
	waitin
	mov $01, $data

; --- PKT4: restore the type bits the dispatch masked, then forward ---
PKT4:
	mov $02, 0x4000 << 16
	or $02, $01, $02
	cwrite $02, [$00 + 0x0f8], 0x0
	(rep)cwrite $data, [$00 + 0x0f8], 0x0
	waitin
	mov $01, $data

; --- CP_INDIRECT_BUFFER {addr_lo, addr_hi, size} ---
CP_INDIRECT_BUFFER:
	brne $rem, 0x3, #forward        ; malformed: the ME reports it
	nop
	mov $02, $data
	mov $03, $data
	mov $04, $data
	breq $04, 0x0, #ib_done
	cread $05, [$00 + 0x054], 0x0   ; IB_LEVEL
	breq $05, 0x2, #ib_too_deep
	shl $05, $05, 0x2               ; IB1 regs at 0x0b0, IB2 regs at 0x0b4
	cwrite $02, [$05 + @IB1_BASE], 0x0
	cwrite $03, [$05 + @IB1_BASE_HI], 0x0
	cwrite $04, [$05 + @IB1_DWORDS], 0x0
ib_done:
	waitin
	mov $01, $data
ib_too_deep:
	cwrite $01, [$00 + 0x0f7], 0x0  ; malformed: IB3 does not exist
	waitin
	mov $01, $data

; --- IN_IB_END: the CP dispatches it when an IB's dwords are consumed (as on a6xx); fetch keeps
; the IB level itself, so there is nothing to do
IN_IB_END:
	waitin
	mov $01, $data

; every other packet: forward to the ME
UNKN0: UNKN1: UNKN2: UNKN3: UNKN5: UNKN6: UNKN7: UNKN8:
UNKN9: UNKN11: UNKN12: UNKN13: UNKN14: UNKN15: UNKN16:
UNKN17: UNKN18: UNKN19: UNKN20: UNKN21: UNKN22: UNKN23: UNKN24:
UNKN25: UNKN26: UNKN27: UNKN28: UNKN29: UNKN30: UNKN31: UNKN32:
UNKN33: UNKN34: UNKN35: UNKN36: UNKN37: UNKN38: UNKN39: UNKN40:
UNKN41: UNKN42: UNKN43: UNKN44: UNKN45: UNKN46: UNKN47: UNKN48:
UNKN49: UNKN50: UNKN51: UNKN52: UNKN53: UNKN54: UNKN55: UNKN56:
UNKN57: UNKN58: UNKN59: UNKN60: UNKN61: UNKN62: UNKN64: UNKN65:
UNKN66: UNKN67: UNKN68: UNKN69: UNKN70: UNKN71: UNKN72: UNKN73:
UNKN74: UNKN75: UNKN76: UNKN77: UNKN78: UNKN79: UNKN80: UNKN81:
UNKN82: UNKN83: UNKN84: UNKN85: UNKN86: UNKN87: UNKN88: UNKN89:
UNKN90: UNKN91: UNKN92: UNKN93: UNKN94: UNKN95: UNKN96: UNKN97:
UNKN98: UNKN99: UNKN100: UNKN101: UNKN102: UNKN103: UNKN104: UNKN105:
UNKN106: UNKN107: UNKN108: UNKN109: UNKN110: UNKN111: UNKN112: UNKN113:
UNKN114: UNKN115: UNKN116: UNKN117: UNKN118: UNKN119: UNKN120: UNKN121:
UNKN122: UNKN123: UNKN124: UNKN125: UNKN126: UNKN127:
forward:
	cwrite $01, [$00 + 0x0f8], 0x0
	(rep)cwrite $data, [$00 + 0x0f8], 0x0
	waitin
	mov $01, $data
