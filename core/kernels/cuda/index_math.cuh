// index_math.cuh: compile-time helpers for the index arithmetic of the
// rKernel templates (issue #44 item 1), so that a template with its shapes
// as parameters computes exactly what the written-out code did.
#ifndef RAMMER_INDEX_MATH_CUH
#define RAMMER_INDEX_MATH_CUH

template <bool B, class T, class F>
struct RammerIf {
  using type = T;
};
template <class T, class F>
struct RammerIf<false, T, F> {
  using type = F;
};

// V with the type a C++ literal of that value has: int where it fits, else
// long long. A product with it stays in 32 bits where the shapes allow
// (cheaper on the GPU) and widens where they do not.
template <long long V>
struct RammerLiteral {
  using type = typename RammerIf<(V >= -2147483647LL - 1 && V <= 2147483647LL), int, long long>::type;
  static constexpr type value = (type)V;
};

// A box of dims over a tensor: ES are (extent, stride) pairs, innermost dim
// first. offset<O>(r) is the offset of the box's r-th element (row-major
// over the box) in the tensor, in type O; a dim of stride 0 is left out
// (the compiler drops its term).
template <long long... ES>
struct RammerBox {
  template <class O, class I>
  __device__ __forceinline__ static O offset(I) {
    return 0;
  }
};
template <long long E, long long S, long long... REST>
struct RammerBox<E, S, REST...> {
  template <class O, class I>
  __device__ __forceinline__ static O offset(I r) {
    return (O)(r % (I)E) * (O)S + RammerBox<REST...>::template offset<O>(r / (I)E);
  }
};

// Of dims E (outermost first): extent K, and the product of the extents
// after it (its row-major stride).
template <int K, long long... E>
struct RammerDimOf {
  static constexpr long long extent = 1, stride = 1;
};
template <int K, long long E0, long long... REST>
struct RammerDimOf<K, E0, REST...> {
  static constexpr long long extent = K == 0 ? E0 : RammerDimOf<K - 1, REST...>::extent;
  static constexpr long long stride = (K < 0 ? E0 : 1) * RammerDimOf<K - 1, REST...>::stride;
};

// A tensor's dims, outermost first: extent<K>::value and the row-major
// stride<K>::value of dim K.
template <long long... E>
struct RammerDims {
  static constexpr int rank = sizeof...(E);
  template <int K>
  struct extent {
    static constexpr long long value = RammerDimOf<K, E...>::extent;
  };
  template <int K>
  struct stride {
    static constexpr long long value = RammerDimOf<K, E...>::stride;
  };
};

// How an input of the output's shape or broadcast to it is read at output
// element i: all of it (offset i), one value (offset 0), or along some dims
// (Box: a RammerBox of the output's dims with the input's strides, 0 where
// it broadcasts). The element-wise family and the GEMM epilogues read
// their inputs so.
struct RammerReadSame {
  template <class I>
  __device__ __forceinline__ static I offset(I i) {
    return i;
  }
};
struct RammerReadScalar {
  template <class I>
  __device__ __forceinline__ static I offset(I) {
    return 0;
  }
};
template <class Box>
struct RammerReadBroadcast {
  template <class I>
  __device__ __forceinline__ static I offset(I i) {
    return Box::template offset<I>(i);
  }
};

#endif  // RAMMER_INDEX_MATH_CUH
