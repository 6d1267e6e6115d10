# Default PFIFO scenario (G84): three channels, the copy engine (M2MF on PCOPY, engine id 3) and
# semaphores between channels. The channels are kicked in order 0, 1, 2, so 0 and 1 really wait:
#   channel 0 (DMA mode) acquires S1 >= 2 (new-style ACQUIRE_GEQUAL), raises NOTIFY_INTR, sets REF.
#   channel 1 (IB mode)  acquires S0 == 1 (old-style), copies B -> C with a notifier, then
#                        WRITE_LONG releases S1 = 2 (value, 0, PTIMER timestamp).
#   channel 2 (DMA mode) copies 8 words A -> B through a paged DMA object (so through channel
#                        2's page tables and the PCOPY TLB), then releases S0 = 1.
gen G84
channel 0 dma
channel 1 ib order 3
channel 2 dma

# A: source data (VRAM linear 0x3000000); B = 0x3001000, C = 0x3002000
vram 0x3000000 0x11111111 0x22222222 0x33333333 0x44444444 0x55555555 0x66666666 0x77777777 0x88888888

# DMA objects, 0x20 bytes apart and clear of the G84 channel structure's page directory
# (0x200-0x41ff), RAMFC (0x5400) and the loader's pushbuffer object (0x600): 0x610 = all of
# VRAM, 0x612 = the semaphore page at 0x3100000, 0x614 = a notifier, 0x616 = paged: offset 0
# is virtual address 0x10000000.
dmaobj 1 0x610 target vram base 0 limit 0x3fffffff
dmaobj 2 0x610 target vram base 0 limit 0x3fffffff
dmaobj 0 0x612 target vram base 0x3100000 limit 0xfff
dmaobj 1 0x612 target vram base 0x3100000 limit 0xfff
dmaobj 2 0x612 target vram base 0x3100000 limit 0xfff
dmaobj 1 0x614 target vram base 0x3100100 limit 0xff
dmaobj 2 0x616 target vm base 0x10000000 limit 0x1fff
# Channel 2's page tables (nv50-vm.rst): channel structure 0x1040000, page directory at +0x200.
# PDE 0 (virtual 0-0x1fffffff): small pages (3), page table in VRAM (target 0) at 0x1100000.
# PTEs 0x10000 and 0x10001 (virtual 0x10000000, 0x10001000): present, VRAM, A and B.
vram 0x1040200 0x01100003 0
vram 0x1180000 0x03000001 0 0x03001001 0
# RAMHT: the M2MF object (engine 3) and the DMA objects (engine 0)
object 1 0xcafe5039 engine 3 sel 0x618
object 2 0xcafe5039 engine 3 sel 0x618
object 1 0xd0000020 engine 0 sel 0x610
object 2 0xd0000020 engine 0 sel 0x610
object 0 0xd0000021 engine 0 sel 0x612
object 1 0xd0000021 engine 0 sel 0x612
object 2 0xd0000021 engine 0 sel 0x612
object 1 0xd0000022 engine 0 sel 0x614
object 2 0xd0000023 engine 0 sel 0x616

push 0
  inc 0 DMA_SEMAPHORE 0xd0000021
  inc 0 SEMAPHORE_ADDRESS_HIGH 0
  inc 0 SEMAPHORE_ADDRESS_LOW 0x10
  inc 0 SEMAPHORE_SEQUENCE 2
  inc 0 SEMAPHORE_TRIGGER 4        # ACQUIRE_GEQUAL
  inc 0 NOTIFY_INTR 0
  inc 0 REF_CNT 0x100
end

push 1
  inc 0 DMA_SEMAPHORE 0xd0000021
  inc 0 SEMAPHORE_OFFSET 0x0
  inc 0 SEMAPHORE_ACQUIRE 1
end
push 1
  inc 0 OBJECT 0xcafe5039
  inc 0 M2MF.DMA_NOTIFY 0xd0000022 0xd0000020 0xd0000020   # notify, in, out
  inc 0 M2MF.OFFSET_IN 0x3001000 0x3002000 32 32 32 1 0x101 # in, out, pitches, line length, count, format
  inc 0 M2MF.NOTIFY 0
  inc 0 M2MF.BUFFER_NOTIFY 0
  inc 1 SEMAPHORE_ADDRESS_HIGH 0
  inc 1 SEMAPHORE_ADDRESS_LOW 0x10
  inc 1 SEMAPHORE_SEQUENCE 2
  inc 1 SEMAPHORE_TRIGGER 2        # WRITE_LONG
  inc 1 REF_CNT 0x101
end

push 2
  inc 0 OBJECT 0xcafe5039
  inc 0 M2MF.DMA_NOTIFY 0xd0000021 0xd0000023 0xd0000023
  inc 0 M2MF.OFFSET_IN 0 0x1000 32 32 32 1 0x101
  inc 0 M2MF.BUFFER_NOTIFY 0
  inc 1 DMA_SEMAPHORE 0xd0000021
  inc 1 SEMAPHORE_OFFSET 0x0
  inc 1 SEMAPHORE_RELEASE 1
  inc 1 REF_CNT 0x102
end

expect vram 0x3002000 0x11111111
expect vram 0x300201c 0x88888888
expect vram 0x3100000 1
expect vram 0x3100010 2
expect vram 0x3100014 0
expect vram 0x310010c 0           # notifier status: done
expect ref 0 0x100
expect ref 1 0x101
expect ref 2 0x102
expect notify 1
# After the run the host unloads every channel (KICK_CHANNEL): channel 2's RAMFC (structure
# 0x1040000 + 0x5400 on G84) holds its final REF at +0x74, and channel 1's (IB, 2 entries) IB_GET at +0x04.
expect vram 0x1045474 0x102
expect vram 0x1025404 2
