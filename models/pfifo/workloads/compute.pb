# The compute class (engine 2, compute_launch.h) launches the Accel-Sim ffma kernel of
# tests/sm/data/ffma on the SM model's compute engine (G84). Channel 0 (DMA mode):
#   binds the compute object, selects kernel 1 with grid 1x1x1 / block 32x1x1 (the trace header),
#   arms a semaphore release (0xcafe at page + 0x10) and a notifier (page + 0), LAUNCHes, then
#   REF_CNT 0x55: the puller waits until the engine is idle, i.e. until the kernel is done.
# Channel 1 (DMA mode) also wants the compute engine: it waits for the switch until channel 0's
# kernel is done, launches the same kernel again and releases 0xbeef at page + 0x20.
gen G84
compute tests/sm/data/ffma/kernelslist.g     # relative to the working directory (the repository root)
channel 0 dma
channel 1 dma

dmaobj 0 0x21 target vram base 0x3100000 limit 0xfff
dmaobj 1 0x21 target vram base 0x3100000 limit 0xfff
object 0 0xc0de50c0 engine 2 sel 0x40
object 1 0xc0de50c0 engine 2 sel 0x40
object 0 0xd0000021 engine 0 sel 0x21
object 1 0xd0000021 engine 0 sel 0x21

push 0
  inc 0 OBJECT 0xc0de50c0
  inc 0 0x180 0xd0000021 0xd0000021   # DMA_NOTIFY, DMA_SEMAPHORE
  inc 0 0x200 1 1 1 1 32 1 1          # KERNEL 1, GRID_X/Y/Z 1 1 1, BLOCK_X/Y/Z 32 1 1
  inc 0 0x220 0x10 0xcafe             # SEMAPHORE_OFFSET 0x10, SEMAPHORE_RELEASE 0xcafe
  inc 0 0x104 0                       # NOTIFY
  inc 0 0x300 0                       # LAUNCH
  inc 0 REF_CNT 0x55
end

push 1
  inc 0 OBJECT 0xc0de50c0
  inc 0 0x184 0xd0000021              # DMA_SEMAPHORE
  inc 0 0x200 1 1 1 1 32 1 1
  inc 0 0x220 0x20 0xbeef
  inc 0 0x300 0                       # LAUNCH
  inc 0 REF_CNT 0x66
end

expect vram 0x3100010 0xcafe          # channel 0's release
expect vram 0x310000c 0               # its notifier status: done
expect vram 0x3100020 0xbeef          # channel 1's release
expect ref 0 0x55
expect ref 1 0x66
