/*
 * assert.h for the WebAssembly build (build.sh): freestanding, no C library.
 * The core's asserts are checked by its own builds and tests; here they
 * compile to nothing, as in any build without assertions.
 */
#define assert(e) ((void) 0)
