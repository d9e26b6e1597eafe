// element_loop.cuh: the loop of the per-element rKernels (issue #44 item 1).
// rTask t covers elements [t * CHUNK, min((t + 1) * CHUNK, TOTAL)) of a
// flat range, and each of its THREADS threads takes every THREADS-th one.
// The per-element families (window pooling, reductions, gathers, ...)
// call it with their element's body; copy.cuh has its own copy of the
// loop: through the lambda, the copies took more registers.
#ifndef RAMMER_ELEMENT_LOOP_CUH
#define RAMMER_ELEMENT_LOOP_CUH

// I: the index type (int where every index fits, as the casts keep the
// arithmetic in it); `body(i)` computes element i.
template <class I, int THREADS, long long CHUNK, long long TOTAL, class Body>
__device__ __forceinline__ void rammer_element_loop(int rtask_id, int tid, Body body) {
  if (tid >= THREADS) return;
  const I begin = (I)rtask_id * (I)CHUNK;
  const I end = begin + (I)CHUNK < (I)TOTAL ? begin + (I)CHUNK : (I)TOTAL;
  for (I i = begin + tid; i < end; i += THREADS) body(i);
}

#endif  // RAMMER_ELEMENT_LOOP_CUH
