# Every DMA_PUSHER error and the puller errors on G84 (SEMAPHORE(MEM_FAULT) is in
# semaphore_fault.pb: a VM fault is a modelled error of the MMU), each latched, reported and acknowledged
# by the workload's interrupt handler; the channels resume after each acknowledge.
gen G84
channel 0 dma
channel 1 dma
channel 2 dma
channel 3 ib order 2
dmaobj 1 0x21 target vram base 0x3100000 limit 0xff
object 1 0xd0000021 engine 0 sel 0x21
object 1 0x50f7 engine 0 sel 0x40        # a SOFTWARE object
dmaobj 2 0x21 target vram base 0x3100000 limit 0xff
object 2 0xd0000021 engine 0 sel 0x21

push 0
  word 0xc0000000                 # INVALID_CMD
  inc 0 0x4 1                     # INVALID_MTHD (0x4 does not exist)
  ret                             # RET_SUBR_INACTIVE
  call 0x2001000
  inc 0 REF_CNT 1
end
push 0 at 0x2001000
  call 0x2002000                  # CALL_SUBR_ACTIVE
  ret
end

push 1
  inc 0 OBJECT 0x1234             # CACHE_ERROR(NO_HASH)
  inc 1 OBJECT 0x50f7             # CACHE_ERROR(EMPTY_SUBCHANNEL): software object
  inc 0 SEMAPHORE_ACQUIRE 1       # SEMAPHORE(INVALID_STATE): no offset
  inc 0 DMA_SEMAPHORE 0xd0000021
  inc 0 SEMAPHORE_OFFSET 0x2      # SEMAPHORE(ADDRESS_UNALIGNED)
  inc 0 SEMAPHORE_OFFSET 0x10000  # SEMAPHORE(ADDRESS_TOO_LARGE)
  inc 0 REF_CNT 2
end

push 2
  inc 0 DMA_SEMAPHORE 0xd0000021
  inc 0 SEMAPHORE_TRIGGER 3       # invalid operation: the channel hangs
  inc 0 REF_CNT 3
end

push 3
  inc 0 REF_CNT 4
end
push 3
end                               # an empty block: IB entry of length 0 = IB_EMPTY
push 3
  inc 0 REF_CNT 5
  jump 0x100                      # INVALID_CMD in IB mode
end

expect error 0 DMA_PUSHER INVALID_CMD
expect error 0 DMA_PUSHER INVALID_MTHD
expect error 0 DMA_PUSHER RET_SUBR_INACTIVE
expect error 0 DMA_PUSHER CALL_SUBR_ACTIVE
expect error 1 CACHE_ERROR NO_HASH
expect error 1 CACHE_ERROR EMPTY_SUBCHANNEL
expect error 1 SEMAPHORE INVALID_STATE
expect error 1 SEMAPHORE ADDRESS_UNALIGNED
expect error 1 SEMAPHORE ADDRESS_TOO_LARGE
expect error 3 DMA_PUSHER IB_EMPTY
expect error 3 DMA_PUSHER INVALID_CMD
expect hang 2
expect ref 0 1
expect ref 1 2
expect ref 2 0
expect ref 3 5
