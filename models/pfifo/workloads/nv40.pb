# NV40 (the gen line below selects the generation): DMA objects in RAMIN (NV4 layout), the global RAMHT
# hashed with the channel id, old-style semaphores (DMA_SEMAPHORE wants class 2, write-only,
# page table present before G80), YIELD, REF_CNT. Pre-G80 DMA objects are global: the channel
# number of a dmaobj line is ignored.
gen NV40
channel 0 dma
channel 1 dma
dmaobj 0 0x21 target vram base 0x3100000 limit 0xfff class 2 rights wo
object 0 0xd0000021 engine 0 sel 0x21
object 1 0xd0000021 engine 0 sel 0x21
object 0 0x1 engine 2 sel 0x40          # engine 2: the recording engine of the auto engine map

push 0
  inc 0 DMA_SEMAPHORE 0xd0000021
  inc 0 SEMAPHORE_OFFSET 0x20
  inc 0 SEMAPHORE_ACQUIRE 0x42          # waits for channel 1
  inc 1 OBJECT 0x1
  ninc 1 0x104 1 2
  inc 0 REF_CNT 0x40
end
push 1
  inc 0 YIELD 0
  inc 0 DMA_SEMAPHORE 0xd0000021
  inc 0 SEMAPHORE_OFFSET 0x20
  inc 0 SEMAPHORE_RELEASE 0x42
  inc 0 REF_CNT 0x41
end

expect vram 0x3100020 0x42
expect ref 0 0x40
expect ref 1 0x41
