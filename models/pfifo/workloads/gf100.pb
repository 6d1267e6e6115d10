# GF100 (the gen line below selects the generation): no RAMHT or DMA objects; OBJECT takes
# engine << 16 | class, the new header forms, new-style semaphores on (unmodelled, so host
# physical) virtual addresses, and ACQUIRE_MASK. VRAM is at host 0x2_0000_0000.
#   channel 0 waits for S & 4 (ACQUIRE_MASK), then sends methods to the recording engine (1).
#   channel 1 copies 4 words with M2MF (engine 4), then WRITE_LONG releases S = 5.
gen GF100
channel 0 ib order 2
channel 1 ib order 2
vram 0x3000000 0xa 0xb 0xc 0xd

push 0
  gf.inc 0 SEMAPHORE_ADDRESS_HIGH 2 0x3100000 4   # high, low, sequence (increasing from 0x10)
  gf.inline 0 SEMAPHORE_TRIGGER 8                  # ACQUIRE_MASK: waits for S & 4
  gf.inc 0 OBJECT 0x10001                          # engine 1 (recording), class 1
  gf.once 0 0x100 1 2 3                            # 0x100 = 1, 0x104 = 2, 0x104 = 3
  gf.inline 0 REF_CNT 2
end

push 1
  gf.inc 0 OBJECT 0x49039                          # engine 4 (M2MF), class 0x9039
  gf.inc 0 M2MF.OFFSET_IN_HIGH 2 2                 # 0x238 in, 0x23c out: bits 32-39
  gf.inc 0 M2MF.OFFSET_IN 0x3000000 0x3001000 16 16 16 1
  gf.inline 0 M2MF.BUFFER_NOTIFY 0
  gf.inc 1 SEMAPHORE_ADDRESS_HIGH 2 0x3100000 5
  gf.inline 1 SEMAPHORE_TRIGGER 2                  # WRITE_LONG: S = 5
  gf.inline 1 REF_CNT 1
end

expect vram 0x3001000 0xa
expect vram 0x300100c 0xd
expect vram 0x3100000 5
expect ref 0 2
expect ref 1 1
