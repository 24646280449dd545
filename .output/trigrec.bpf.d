.output/trigrec.bpf.unstripped.o: bpf/trigrec.bpf.c \
  vmlinux/x86_64/vmlinux.h include/trigrec_abi.h

vmlinux/x86_64/vmlinux.h:

include/trigrec_abi.h:
