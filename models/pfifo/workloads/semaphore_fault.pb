# SEMAPHORE(MEM_FAULT) on G84: a release past the semaphore DMA object's limit. Through the NV50
# MMU the access faults DMAOBJ_LIMIT; the workload expects the MEM_FAULT, and acknowledges the VM
# fault in the MMU like a driver.
gen G84
channel 0 dma
dmaobj 0 0x21 target vram base 0x3100000 limit 0xff
object 0 0xd0000021 engine 0 sel 0x21
push 0
  inc 0 DMA_SEMAPHORE 0xd0000021
  inc 0 SEMAPHORE_OFFSET 0x100
  inc 0 SEMAPHORE_RELEASE 5       # past the limit: SEMAPHORE(MEM_FAULT)
  inc 0 SEMAPHORE_OFFSET 0xfc
  inc 0 SEMAPHORE_RELEASE 6
  inc 0 REF_CNT 1
end
expect error 0 SEMAPHORE MEM_FAULT
expect vram 0x31000fc 6
expect ref 0 1
