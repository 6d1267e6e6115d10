MemcpyHtoD,0x00007f4e8a000000,4096
kernel-1.traceg
MemcpyDtoH,0x00007f4e8a000000,4096
