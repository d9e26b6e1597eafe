// conv_geometry.cuh: a convolution's window as a type (issue #44 item 1),
// read by the implicit-GEMM's im2col operand (gemm_mainloop.cuh) and the
// direct depthwise loop (conv_depthwise.cuh). 1-D and 2-D windows have
// unit leading dims (core/ops/nn/conv_geometry.h's Window3).
#ifndef RAMMER_CONV_GEOMETRY_CUH
#define RAMMER_CONV_GEOMETRY_CUH

// CIN input channels, CG of them per group; the input's, output's and
// kernel's extents (I*, O*, K*), strides (S*), dilations (L*) and leading
// pads (P*) along depth, height and width; N the implicit GEMM's columns
// (images x output positions). Enumerators of type long long, as the
// generated structs they replace had, so the index arithmetic keeps its types.
template <long long CIN_, long long CG_, long long ID_, long long IH_, long long IW_, long long OD_, long long OH_,
          long long OW_, long long KD_, long long KH_, long long KW_, long long SD_, long long SH_, long long SW_,
          long long LD_, long long LH_, long long LW_, long long PD_, long long PH_, long long PW_, long long N_>
struct RammerConvGeometry {
  enum : long long {
    CIN = CIN_, CG = CG_, ID = ID_, IH = IH_, IW = IW_, OD = OD_, OH = OH_, OW = OW_,
    KD = KD_, KH = KH_, KW = KW_, SD = SD_, SH = SH_, SW = SW_, LD = LD_, LH = LH_, LW = LW_,
    PD = PD_, PH = PH_, PW = PW_, N = N_,
    IS = ID_ * IH_ * IW_,  // input positions per channel
    OS = OD_ * OH_ * OW_,  // output positions per channel
    KS = KD_ * KH_ * KW_   // window taps
  };
};

#endif  // RAMMER_CONV_GEOMETRY_CUH
