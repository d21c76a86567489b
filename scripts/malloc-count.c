/*
 * Counts the heap allocations of a process, for the Benchmarks "overhead" case.
 *
 *   gcc -O2 -shared -fPIC -o malloc-count.so malloc-count.c
 *   LD_PRELOAD=./malloc-count.so Benchmarks overhead ...
 *
 * Every malloc-family call that can allocate (malloc, calloc, realloc, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc) adds one to a process-wide counter, which the
 * benchmark reads through courier_bench_malloc_count() (looked up with dlsym, so the benchmark
 * still runs, reporting "n/a", without the shim). free is not wrapped: only allocations count.
 *
 * The wrappers forward to glibc's __libc_* entry points rather than to dlsym(RTLD_NEXT, ...):
 * dlsym itself allocates, which would recurse into an unresolved wrapper on first use.
 * No package dependencies: a C compiler and glibc are all it needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

/* Relaxed: allocations on any thread only need to be counted, not ordered. */
static unsigned long allocations;

static inline void count_one(void) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
}

unsigned long courier_bench_malloc_count(void) {
    return __atomic_load_n(&allocations, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    /* The same checks glibc makes: a power of two, a multiple of sizeof(void *). */
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
        return EINVAL;
    }
    count_one();
    void *memory = __libc_memalign(alignment, size);
    if (memory == NULL) {
        return ENOMEM;
    }
    *result = memory;
    return 0;
}

void *valloc(size_t size) {
    count_one();
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    count_one();
    return __libc_pvalloc(size);
}
