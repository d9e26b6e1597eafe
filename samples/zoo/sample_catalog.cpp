#include "samples/zoo/sample_catalog.h"

#include "samples/zoo/alexnet.h"
#include "samples/zoo/bert_base.h"
#include "samples/zoo/deepspeech2.h"
#include "samples/zoo/gpt2_small.h"
#include "samples/zoo/handoff_chain.h"
#include "samples/zoo/inception_block.h"
#include "samples/zoo/inception_v3.h"
#include "samples/zoo/lstm_tc.h"
#include "samples/zoo/nasbench_cells.h"
#include "samples/zoo/nasnet_cifar.h"
#include "samples/zoo/randwire.h"
#include "samples/zoo/resnext29.h"
#include "samples/zoo/seq2seq.h"
#include "samples/zoo/squeezenet.h"
#include "samples/zoo/swin_t.h"
#include "samples/zoo/vit_b16.h"

namespace rammer::samples {

std::vector<SampleModel> sampleCatalog() {
  return {
      {"resnext29_cifar", "ResNeXt-29 16x64d, CIFAR-10 (Xie et al. 2017)", 68.1e6, buildResNeXt29},
      {"nasnet_cifar", "NASNet-A 6@768, CIFAR-10 (Zoph et al. 2018)", 3.3e6, buildNasNetCifar},
      {"alexnet", "AlexNet, ImageNet, torchvision layout", 61.1e6, buildAlexNet},
      {"deepspeech2", "DeepSpeech2: 2 conv + 7 LSTM 256, 300 frames", 0, buildDeepSpeech2},
      {"lstm_tc", "LSTM-TC: 10 LSTM layers, hidden 256, 100 steps", 0, buildLstmTc},
      {"seq2seq", "Seq2Seq: encoder 8x100 LSTM 128, decoder 4x30", 0, buildSeq2Seq},
      {"inception_block", "Inception-V3 A block (Mixed_5b) on 192x35x35", 0, buildInceptionBlock},
      {"nasbench_cells", "random NAS-Bench-101 cells after a stem conv", 0, buildNasBenchCells},
      // torchvision's 27,161,264 less the 3,326,696 of the auxiliary
      // classifier, which an inference graph does not have.
      {"inception_v3", "Inception-V3, ImageNet 299x299, torchvision layout, no aux logits", 23834568,
       buildInceptionV3},
      {"squeezenet", "SqueezeNet 1.1, ImageNet, torchvision layout", 1235496, buildSqueezeNet},
      // The paper's 5.6 M (+-0.1 M over random graphs) for RandWire-WS, C = 78.
      {"randwire", "RandWire-WS small regime: 3 random stages of WS(32, 4, 0.75), C = 78", 5.6e6, buildRandWire},
      // BERT-base's encoder stack without embeddings and pooler: 12 x 7,087,872.
      {"bert_base", "BERT-base-style encoder: 12 post-norm layers, hidden 768, 12 heads, seq 128", 85054464,
       buildBertBase, true},
      // GPT-2 small's 12 blocks (the same 12 x 7,087,872) and final norm, no embeddings or head.
      {"gpt2_small", "GPT-2-small-style decoder: 12 pre-norm causal blocks, hidden 768, 12 heads, seq 128",
       85056000, buildGpt2Small, true},
      // timm's vit_base_patch16_224: 86,567,656.
      {"vit_b16", "ViT-B/16-style classifier: 16x16 patches of 224x224, 12 pre-norm layers, hidden 768", 86567656,
       buildVitB16, true},
      // timm's swin_tiny_patch4_window7_224: 28,288,354.
      {"swin_t", "Swin-T-style classifier: 4x4 patches, shifted 7x7 windows, depths 2-2-6-2, dims 96-768", 28288354,
       buildSwinT, true},
      // Not a paper model: the GPU bench's hand-off microbenchmark.
      {"handoff_chain", "hand-off microbenchmark: 128 dependent GEMV links of width 256", 0,
       buildHandoffChain, true},
  };
}

const SampleModel* findSample(const std::vector<SampleModel>& catalog, const std::string& name) {
  for (const SampleModel& m : catalog)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace rammer::samples
