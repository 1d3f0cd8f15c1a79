#ifndef REENCODE_CMALLOC_SHIM_H
#define REENCODE_CMALLOC_SHIM_H
#include <malloc.h>
#include <stddef.h>
// Bytes in use over every malloc arena (glibc 2.33+): what a leak check should count, not RSS.
static inline size_t rx_heap_in_use(void) { return mallinfo2().uordblks; }
#endif
