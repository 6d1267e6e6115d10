; gpuvp CP firmware for the a6xx SQE (assembled at build time: gpuvp afuc-asm -g 6).
; Conventions of the gpuvp CP model (docs/models/cp.md):
;   GPU registers: CP_ME_NRT_ADDR_LO 0x840, _HI 0x841, CP_ME_NRT_DATA 0x842 (memory data port,
;   no $addr auto-increment), CP_SCRATCH_REG0..7 0x883..0x88a.
;   Private control registers: 0x0f1 raise CP interrupt bits, 0x0f2/0x0f3 compute-dispatch
;   word/end, 0x0f4 stall N cycles, 0x0f5 event record, 0x0f6 unknown opcode (header),
;   0x0f7 malformed packet (header), 0x0f9 secure-mode switch refused, 0x0fa packet without
;   effect in the model (header), reads of 0x0fb/0x0fc: 64-bit timestamp, low then high.
; Registers: $01 = current header (type bits masked for PKT4), $rem = payload dwords left.
[00000001]      ; version
[00000000]      ; jump-table offset (patched by the assembler)
boot:
	waitin
	mov $01, $data

; --- PKT4: write $rem consecutive registers from header bits 25:8 ---
PKT4:
	shl $02, $01, 0x6
	ushr $addr, $02, 0xe
	(rep)mov $data, $data
	waitin
	mov $01, $data

; --- IN_IB_END: the CP dispatches it (a6xx) when an IB's dwords are consumed; the model keeps the
; IB level itself, so nothing is left to do ---
IN_IB_END:
	waitin
	mov $01, $data

; --- CP_NOP / CP_ME_INIT: payload consumed and ignored ---
CP_NOP:
CP_ME_INIT:
	(rep)mov $00, $data
	waitin
	mov $01, $data

; --- CP_INDIRECT_BUFFER {addr_lo, addr_hi, size}: IB1 from the ring, IB2 from IB1 ---
CP_INDIRECT_BUFFER:
	brne $rem, 0x3, #malformed
	nop
	mov $02, $data
	mov $03, $data
	mov $04, $data
	breq $04, 0x0, #ib_done         ; empty IB: nothing to fetch
	cread $05, [$00 + 0x054], 0x0       ; IB_LEVEL (served for both generations)
	breq $05, 0x2, #malformed       ; IB3 does not exist
	shl $05, $05, 0x2               ; IB1 regs at 0x010, IB2 regs at 0x014
	cwrite $02, [$05 + @IB1_BASE], 0x0
	cwrite $03, [$05 + @IB1_BASE_HI], 0x0
	cwrite $04, [$05 + @IB1_DWORDS], 0x0   ; starts fetching from the IB
ib_done:
	waitin
	mov $01, $data

; --- CP_MEM_WRITE {addr_lo, addr_hi, data...} ---
CP_MEM_WRITE:
	cmp $02, $rem, 0x3
	breq $02, b2, #malformed        ; fewer than 3 dwords (cmp gives 0x1e: bit 2)
	nop
	mov $addr, 0x840                ; CP_ME_NRT_ADDR_LO
	mov $data, $data
	mov $data, $data
	mov $addr, 0x842                ; CP_ME_NRT_DATA
	(rep)mov $data, $data
	waitin
	mov $01, $data

; --- CP_REG_TO_MEM {REG[17:0] | CNT[29:18] | 64B[30] | ACCUMULATE[31], dst_lo, dst_hi} ---
; max(CNT, 1) dwords, rounded up to an even count with 64B (Mesa: "rounded to the next 64B
; boundary"). ACCUMULATE (gpuvp's reading): memory += register, per dword, or per 64-bit value
; with 64B (the carry goes from the low dword into the high one).
CP_REG_TO_MEM:
	brne $rem, 0x3, #malformed
	nop
	mov $02, $data
	mov $07, $data                  ; dst lo
	mov $08, $data                  ; dst hi
	shl $03, $02, 0xe
	ushr $03, $03, 0xe              ; REG
	ushr $04, $02, 0x12
	and $04, $04, 0xfff             ; CNT
	max $04, $04, 0x1               ; max(CNT, 1)
	brne $02, b30, #r2m_counted
	nop
	add $04, $04, 0x1               ; 64B: round up to an even count
	and $04, $04, 0xfffe
r2m_counted:
	breq $02, b31, #r2m_acc
	nop
	mov $addr, 0x840
	mov $data, $07
	mov $data, $08
	mov $addr, $03                  ; read registers through $addr
	mov $usraddr, 0x842             ; write the data port through $usraddr
	mov $rem, $04
	(rep)mov $data, $memdata
	waitin
	mov $01, $data
r2m_acc:
	mov $0c, $00                    ; carry into the next dword (64B only)
	mov $0d, $00                    ; dword index
r2m_acc_loop:
	mov $addr, 0x840
	mov $data, $07
	mov $data, $08
	mov $addr, 0x842
	mov $09, $memdata               ; the memory value
	mov $addr, $03
	mov $0a, $memdata               ; the register value
	add $0a, $0a, $09
	addhi $0e, $00, $00             ; this dword's carry out
	add $0a, $0a, $0c               ; carry in (the high dword of a 64B value only)
	mov $0c, $00
	brne $02, b30, #r2m_acc_write   ; 32-bit values: no carry chain
	and $0b, $0d, 0x1               ; delay slot: odd index = high dword
	brne $0b, 0x0, #r2m_acc_write
	nop
	mov $0c, $0e                    ; low dword: its carry goes into the high one
r2m_acc_write:
	mov $addr, 0x840
	mov $data, $07
	mov $data, $08
	mov $addr, 0x842
	mov $data, $0a
	add $07, $07, 0x4
	addhi $08, $08, $00
	add $03, $03, 0x1
	add $0d, $0d, 0x1
	sub $0b, $04, $0d
	brne $0b, 0x0, #r2m_acc_loop
	nop
	waitin
	mov $01, $data

; --- CP_MEM_TO_REG {REG[17:0] | CNT[29:19], src_lo, src_hi} ---
CP_MEM_TO_REG:
	brne $rem, 0x3, #malformed
	nop
	mov $02, $data
	mov $addr, 0x840
	mov $data, $data
	mov $data, $data
	shl $03, $02, 0xe
	ushr $03, $03, 0xe              ; REG
	ushr $04, $02, 0x13
	and $04, $04, 0x7ff             ; CNT
	max $04, $04, 0x1
	mov $addr, 0x842                ; read memory through the data port
	mov $usraddr, $03               ; write registers through $usraddr
	mov $rem, $04
	(rep)mov $data, $memdata
	waitin
	mov $01, $data

; --- CP_MEM_TO_MEM {flags (DOUBLE[29]), dst_lo, dst_hi, src_lo, src_hi} ---
CP_MEM_TO_MEM:
	brne $rem, 0x5, #malformed
	nop
	mov $06, $data                  ; flags
	mov $02, $data
	mov $03, $data
	mov $addr, 0x840
	mov $data, $data
	mov $data, $data
	mov $addr, 0x842
	mov $04, $memdata               ; src[0]
	mov $05, $memdata               ; src[1]
	mov $addr, 0x840
	mov $data, $02
	mov $data, $03
	mov $addr, 0x842
	breq $06, b29, #m2m_double
	mov $data, $04                  ; delay slot: the first dword always
	waitin
	mov $01, $data
m2m_double:
	mov $data, $05
	waitin
	mov $01, $data

; --- CP_SCRATCH_WRITE {SCRATCH[2:0], values...} ---
CP_SCRATCH_WRITE:
	breq $rem, 0x0, #malformed
	nop
	mov $02, $data
	and $02, $02, 0x7
	add $addr, $02, 0x883           ; CP_SCRATCH_REG0 + n
	(rep)mov $data, $data
	waitin
	mov $01, $data

; --- CP_EVENT_WRITE {EVENT[7:0] | TIMESTAMP[30] | IRQ[31][, addr_lo, addr_hi[, value]]} ---
; Mesa adreno_pm4.xml: with an address the event writes `value`, or with TIMESTAMP the CP's
; 64-bit timestamp (private control registers 0x0fb/0x0fc, low then high) instead of it.
CP_EVENT_WRITE:
	breq $rem, 0x0, #malformed
	nop
	mov $02, $data
	cwrite $02, [$00 + 0x0f5], 0x0  ; event record (statistics)
	breq $rem, 0x0, #ev_irq         ; no address: nothing to write
	nop
	breq $rem, b1, #ev_len          ; 2 or 3 dwords left: an address follows
	nop
	jump #malformed                 ; 1 dword left: half an address
	nop
ev_len:
	mov $addr, 0x840                ; CP_ME_NRT_ADDR_LO
	mov $data, $data
	mov $data, $data
	mov $addr, 0x842                ; CP_ME_NRT_DATA
	breq $02, b30, #ev_ts
	nop
	breq $rem, 0x0, #ev_irq         ; no value: the event writes nothing of ours
	nop
	jump #ev_irq
	mov $data, $data                ; delay slot: the value
ev_ts:
	cread $03, [$00 + 0x0fb], 0x0   ; timestamp, low dword (latches the high one)
	mov $data, $03
	cread $03, [$00 + 0x0fc], 0x0
	mov $data, $03
ev_irq:
	brne $02, b31, #ev_done
	mov $03, 0x2                    ; delay slot: CP_INT_STATUS bit 1 (event)
	cwrite $03, [$00 + 0x0f1], 0x0
ev_done:
	(rep)mov $00, $data             ; anything left (a value beside TIMESTAMP)
	waitin
	mov $01, $data

; --- CP_REG_WRITE {TRACKER[3:0], reg, value}: the register write (the tracker is not modelled) ---
CP_REG_WRITE:
	brne $rem, 0x3, #malformed
	nop
	mov $00, $data
	mov $addr, $data
	mov $data, $data
	waitin
	mov $01, $data

; --- CP_COND_REG_EXEC {flags, dwords}: the predicate is not modelled; the body runs ---
CP_COND_REG_EXEC:
	brne $rem, 0x2, #malformed
	nop
	cwrite $01, [$00 + 0x0fa], 0x0  ; counted in cp.packets_noop
	(rep)mov $00, $data
	waitin
	mov $01, $data

; --- Packets whose effect lies outside the CP (draws, blits, binning, caches, markers, waits on
; units the model does not have): payload consumed, counted in cp.packets_noop (docs/models/cp.md).
CP_WAIT_MEM_WRITES: CP_WAIT_FOR_ME: CP_WAIT_MEM_GTE: CP_WAIT_FOR_IDLE:
CP_SKIP_IB2_ENABLE_GLOBAL: CP_SKIP_IB2_ENABLE_LOCAL: CP_SET_MODE: CP_SET_VISIBILITY_OVERRIDE:
CP_SET_MARKER: CP_SET_BIN_DATA5: CP_SET_BIN_DATA5_OFFSET: CP_SET_DRAW_STATE: CP_REG_TEST:
CP_COND_WRITE5: CP_BLIT: CP_DRAW_INDX: CP_DRAW_INDX_OFFSET: CP_DRAW_INDIRECT:
CP_DRAW_INDX_INDIRECT: CP_DRAW_INDIRECT_MULTI: CP_DRAW_AUTO: CP_LOAD_STATE6: CP_LOAD_STATE6_GEOM:
CP_LOAD_STATE6_FRAG: CP_INVALIDATE_STATE: CP_SET_SUBDRAW_SIZE: CP_SET_INDEX_BUFFER:
CP_DRAW_PRED_ENABLE_GLOBAL: CP_DRAW_PRED_ENABLE_LOCAL: CP_DRAW_PRED_SET: CP_CONTEXT_UPDATE:
CP_SET_PSEUDO_REG: CP_RECORD_PFP_TIMESTAMP: CP_PREEMPT_DISABLE: CP_SET_AMBLE:
	cwrite $01, [$00 + 0x0fa], 0x0
	(rep)mov $00, $data
	waitin
	mov $01, $data

; --- CP_WAIT_REG_MEM {FUNCTION[2:0] | SIGNED[3] | POLL[5:4] | WRITE_MEMORY[8], poll_lo, poll_hi,
; ref, mask, delay[, write_lo, write_hi, write_data]} ---
; POLL: 0 register (poll_lo), 1 memory, 2 scratch (CP_SCRATCH_REG[poll_lo & 7]), 3 (a7xx on-chip)
; malformed. WRITE_MEMORY (gpuvp's reading, fields as CP_COND_WRITE5): when the wait ends,
; write_data goes to write_lo/hi.
CP_WAIT_REG_MEM:
	breq $rem, 0x6, #wrm_len
	nop
	brne $rem, 0x9, #malformed
	nop
wrm_len:
	mov $02, $data                  ; flags
	mov $03, $data                  ; poll lo (register offset when polling a register)
	mov $04, $data                  ; poll hi
	mov $05, $data                  ; reference
	mov $06, $data                  ; mask
	mov $07, $data                  ; delay cycles between polls
	brne $02, b8, #wrm_nowrite
	nop
	brne $rem, 0x3, #malformed      ; WRITE_MEMORY: write_lo, write_hi, write_data follow
	nop
	jump #wrm_flags
	nop
wrm_nowrite:
	brne $rem, 0x0, #malformed
	nop
wrm_flags:
	ushr $0c, $02, 0x4
	and $0c, $0c, 0x3               ; POLL
	breq $0c, 0x3, #malformed
	mov $0b, 0x8000 << 16           ; delay slot: sign bit for SIGNED compares
	and $08, $02, 0x7               ; FUNCTION
	breq $08, 0x7, #malformed
	and $05, $05, $06               ; compare (value & mask) with (ref & mask)
	breq $02, b3, #wrm_signed
	nop
wrm_poll:
	breq $0c, 0x1, #wrm_mem
	breq $0c, 0x2, #wrm_scratch     ; at most one of the two is taken
	mov $addr, $03                  ; register poll (a scratch poll sets $addr again)
	jump #wrm_cmp
	mov $09, $memdata               ; delay slot: the register value
wrm_scratch:
	and $0d, $03, 0x7
	add $addr, $0d, 0x883           ; CP_SCRATCH_REG0 + n
	jump #wrm_cmp
	mov $09, $memdata
wrm_mem:
	mov $addr, 0x840
	mov $data, $03
	mov $data, $04
	mov $addr, 0x842
	mov $09, $memdata
wrm_cmp:
	and $09, $09, $06
	breq $02, b3, #wrm_flip
	nop
wrm_test:
	cmp $0a, $09, $05               ; 0x00 value>ref, 0x2b equal, 0x1e value<ref
	breq $08, 0x0, #wrm_done        ; always
	nop
	breq $08, 0x1, #wrm_lt
	nop
	breq $08, 0x2, #wrm_le
	nop
	breq $08, 0x3, #wrm_eq
	nop
	breq $08, 0x4, #wrm_ne
	nop
	breq $08, 0x5, #wrm_ge
	nop
	brne $0a, b1, #wrm_done         ; GT: 0x00 is the only code without bit 1
	nop
	jump #wrm_again
	nop
wrm_lt:
	breq $0a, b2, #wrm_done         ; only 0x1e has bit 2
	nop
	jump #wrm_again
	nop
wrm_le:
	breq $0a, b1, #wrm_done         ; 0x2b and 0x1e have bit 1
	nop
	jump #wrm_again
	nop
wrm_eq:
	breq $0a, b0, #wrm_done         ; only 0x2b has bit 0
	nop
	jump #wrm_again
	nop
wrm_ne:
	brne $0a, b0, #wrm_done
	nop
	jump #wrm_again
	nop
wrm_ge:
	brne $0a, b2, #wrm_done
	nop
wrm_again:
	cwrite $07, [$00 + 0x0f4], 0x0  ; wait the delay, then poll again
	jump #wrm_poll
	nop
wrm_signed:
	xor $05, $05, $0b               ; flip the sign bit of the reference once
	jump #wrm_poll
	nop
wrm_flip:
	jump #wrm_test
	xor $09, $09, $0b               ; delay slot: flip the sign bit of the value
wrm_done:
	brne $02, b8, #wrm_end
	nop
	mov $addr, 0x840                ; WRITE_MEMORY: write_data to write_lo/hi
	mov $data, $data
	mov $data, $data
	mov $addr, 0x842
	mov $data, $data
wrm_end:
	waitin
	mov $01, $data

; --- CP_EXEC_CS: the payload goes to the compute-dispatch port ---
CP_EXEC_CS:
	(rep)cwrite $data, [$00 + 0x0f2], 0x0
	cwrite $00, [$00 + 0x0f3], 0x0
	waitin
	mov $01, $data

; --- CP_SET_SECURE_MODE {SECURE[0]}: setsecure with $02 bit 0; success skips the next two ---
CP_SET_SECURE_MODE:
	brne $rem, 0x1, #malformed
	nop
	mov $02, $data
	setsecure $02, #ssm_done
	cwrite $02, [$00 + 0x0f9], 0x0  ; refused: the model raises the CP error interrupt
	nop
ssm_done:
	waitin
	mov $01, $data

; --- preemption handler: jump-table entry 15, entered through PREEMPT_INSTR (control 0x004;
; 0 = entry 15) when the host sets CP_CONTEXT_SWITCH_CNTL.STOP or the firmware writes
; PREEMPT_TRIGGER. It may interrupt any packet, so it uses only $1a (no packet handler does).
UNKN15:
	mov $1a, 0x4                    ; CP_INT_STATUS bit 2: context switch done
	cwrite $1a, [$00 + 0x0f1], 0x0
	iret
	nop

; --- errors: the model raises the CP error interrupt with the opcode ---
malformed:
	cwrite $01, [$00 + 0x0f7], 0x0
	(rep)mov $00, $data
	waitin
	mov $01, $data

; every other packet id
UNKN0: UNKN1: UNKN2: UNKN3: UNKN5: UNKN6: UNKN7: UNKN8:
UNKN9: UNKN11: UNKN12: UNKN13: UNKN14: 
UNKN21: UNKN22: UNKN23: UNKN24: 
UNKN27: UNKN28: UNKN30: UNKN31: UNKN33:
UNKN37: UNKN39: 
UNKN43: UNKN45: UNKN48: UNKN49:
UNKN55: UNKN58:
UNKN64: UNKN65: UNKN68: UNKN73:
UNKN74: UNKN75: UNKN77: UNKN79: UNKN80: UNKN81: UNKN82:
UNKN83: UNKN84: UNKN87: UNKN88: UNKN89: UNKN90:
UNKN91: UNKN92: UNKN93: UNKN95: UNKN96: UNKN97: UNKN98:
UNKN103: UNKN104: UNKN105: UNKN106:
UNKN107: UNKN110: UNKN111: UNKN112: UNKN113: UNKN114:
UNKN116: UNKN117: UNKN118: UNKN119: UNKN120: UNKN121: UNKN122: UNKN123:
UNKN124: UNKN125: UNKN126: UNKN127:
unknown:
	cwrite $01, [$00 + 0x0f6], 0x0
	(rep)mov $00, $data
	waitin
	mov $01, $data
