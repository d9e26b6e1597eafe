// conv_depthwise.cuh: the direct convolution of one input channel per
// group (depthwise; issue #44 item 1). One rTask is CHUNK consecutive
// output positions of one (image, output channel) plane, one position per
// thread at a time, over geometry G (conv_geometry.cuh); the sum plus the
// channel's bias goes through the fused node's epilogue (gemm_store.cuh).
// Built on index_math.cuh, conv_geometry.cuh and gemm_store.cuh.
#ifndef RAMMER_CONV_DEPTHWISE_CUH
#define RAMMER_CONV_DEPTHWISE_CUH

// x: [images][CIN][IS], w: [COUT][KS], bias: [COUT] (or null, HAS_BIAS
// false), out: [images][COUT][OS]; output channel co reads input channel
// co / MG. `extra`: the epilogue's other inputs.
template <class I, int NT, long long CHUNK, long long CHUNKS, class G, long long COUT, long long MG, bool HAS_BIAS,
          class Epilogue, class... Reads>
__device__ __forceinline__ void rammer_conv_depthwise(int rtask_id, int tid, float* smem, const float* x,
                                                      const float* w, const float* bias, float* out,
                                                      RammerGemmInput<Reads>... extra) {
  (void)smem;
  // The geometry with the types its literals had in the written-out loop.
  constexpr auto CIN = RammerLiteral<G::CIN>::value, IS = RammerLiteral<G::IS>::value;
  constexpr auto KS = RammerLiteral<G::KS>::value, OS = RammerLiteral<G::OS>::value;
  constexpr auto ID = RammerLiteral<G::ID>::value, IH = RammerLiteral<G::IH>::value, IW = RammerLiteral<G::IW>::value;
  constexpr auto OH = RammerLiteral<G::OH>::value, OW = RammerLiteral<G::OW>::value;
  constexpr auto KD = RammerLiteral<G::KD>::value, KH = RammerLiteral<G::KH>::value, KW = RammerLiteral<G::KW>::value;
  constexpr auto SD = RammerLiteral<G::SD>::value, SH = RammerLiteral<G::SH>::value, SW = RammerLiteral<G::SW>::value;
  constexpr auto LD = RammerLiteral<G::LD>::value, LH = RammerLiteral<G::LH>::value, LW = RammerLiteral<G::LW>::value;
  constexpr auto PD = RammerLiteral<G::PD>::value, PH = RammerLiteral<G::PH>::value, PW = RammerLiteral<G::PW>::value;
  const I chunk = rtask_id % (I)CHUNKS, nc = rtask_id / (I)CHUNKS;
  const I co = nc % RammerLiteral<COUT>::value, img = nc / RammerLiteral<COUT>::value;
  const I ci = co / RammerLiteral<MG>::value;
  if (tid >= NT) return;
  const float* xp = x + (img * CIN + ci) * IS;
  const float* wt = w + co * KS;
  const I qEnd = (chunk + 1) * (I)CHUNK < OS ? (chunk + 1) * (I)CHUNK : OS;
  for (I q = chunk * (I)CHUNK + tid; q < qEnd; q += NT) {
    const I ow = q % OW, oh = (q / OW) % OH, od = q / (OW * OH);
    float acc = 0.0f;
    for (int kd = 0; kd < KD; ++kd) {
      const I id = od * SD - PD + kd * LD;
      if (id < 0 || id >= ID) continue;
      for (int kh = 0; kh < KH; ++kh) {
        const I ih = oh * SH - PH + kh * LH;
        if (ih < 0 || ih >= IH) continue;
#pragma unroll
        for (int kw = 0; kw < KW; ++kw) {
          const I iw = ow * SW - PW + kw * LW;
          if (iw >= 0 && iw < IW) acc = fmaf(wt[(kd * KH + kh) * KW + kw], xp[(id * IH + ih) * IW + iw], acc);
        }
      }
    }
    float p = acc;
    if constexpr (HAS_BIAS) p = p + bias[co];
    rammer_epilogue_store<I, Epilogue, Reads...>(out, nc * OS + q, p, extra...);
  }
}

#endif  // RAMMER_CONV_DEPTHWISE_CUH
