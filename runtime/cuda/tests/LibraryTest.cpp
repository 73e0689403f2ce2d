//===- LibraryTest.cpp - cuBLAS/cuDNN calls against the CPU kernels -------===//
//
// Each dtf_cuda_* function of the lowered programs' C ABI, called as
// lowered code calls it (memref descriptors), against the CPU kernel of
// dtf_runtime with the same TensorFlow semantics.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/tests/GpuTestUtil.h"

#include "runtime/cuda/Library.h"

namespace dtf::cuda {
namespace {

using testing::expectClose;
using testing::uniform;

/// The descriptor lowered code passes for a contiguous device tensor.
template <int N> MemRefDescriptor<float, N> describe(const DeviceTensor &t) {
  MemRefDescriptor<float, N> memref;
  memref.allocated = memref.aligned = static_cast<float *>(t.data());
  memref.offset = 0;
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    memref.sizes[i] = t.shape()[i];
    memref.strides[i] = stride;
    stride *= t.shape()[i];
  }
  return memref;
}

/// TensorFlow's HWIO filter in cuDNN's OHWI layout, as the compiler passes
/// it.
Tensor toOHWI(const Tensor &hwio) {
  const Shape &s = hwio.shape();
  Tensor ohwi(DType::F32, {s[3], s[0], s[1], s[2]});
  const float *in = hwio.data<float>();
  float *out = ohwi.data<float>();
  for (int64_t h = 0; h < s[0]; ++h)
    for (int64_t w = 0; w < s[1]; ++w)
      for (int64_t i = 0; i < s[2]; ++i)
        for (int64_t o = 0; o < s[3]; ++o)
          out[((o * s[0] + h) * s[1] + w) * s[2] + i] =
              in[((h * s[1] + w) * s[2] + i) * s[3] + o];
  return ohwi;
}

Tensor toHWIO(const Tensor &ohwi) {
  const Shape &s = ohwi.shape();
  Tensor hwio(DType::F32, {s[1], s[2], s[3], s[0]});
  const float *in = ohwi.data<float>();
  float *out = hwio.data<float>();
  for (int64_t o = 0; o < s[0]; ++o)
    for (int64_t h = 0; h < s[1]; ++h)
      for (int64_t w = 0; w < s[2]; ++w)
        for (int64_t i = 0; i < s[3]; ++i)
          out[((h * s[2] + w) * s[3] + i) * s[0] + o] =
              in[((o * s[1] + h) * s[2] + w) * s[3] + i];
  return hwio;
}

class LibraryTest : public ::testing::Test {
protected:
  void SetUp() override {
    DTF_REQUIRE_GPU();
    device = &Device::get(0);
    context = std::make_unique<LibraryContext>(*device);
  }
  void TearDown() override { context.reset(); }

  DeviceTensor upload(const Tensor &t) {
    return DeviceTensor::fromHost(*device, t);
  }

  Device *device = nullptr;
  std::unique_ptr<LibraryContext> context;
};

TEST_F(LibraryTest, GemmMatchesMatmul) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const int64_t m = 37, k = 129, n = 19;
      Tensor a = uniform(DType::F32, ta ? Shape{k, m} : Shape{m, k}, -1, 1, 1);
      Tensor b = uniform(DType::F32, tb ? Shape{n, k} : Shape{k, n}, -1, 1, 2);
      DeviceTensor da = upload(a), db = upload(b);
      DeviceTensor dc(*device, DType::F32, {m, n});
      auto ma = describe<2>(da), mb = describe<2>(db), mc = describe<2>(dc);
      _mlir_ciface_dtf_cuda_gemm_f32(&ma, &mb, &mc, ta, tb);
      LibraryContext::throwIfFailed();
      expectClose(dc.toHost(), kernels::matmul(a, b, ta, tb),
                  "gemm transpose_a=" + std::to_string(ta) +
                      " transpose_b=" + std::to_string(tb));
    }
}

TEST_F(LibraryTest, GemmRejectsMismatchedShapes) {
  DeviceTensor a(*device, DType::F32, {4, 5}), b(*device, DType::F32, {6, 3});
  DeviceTensor c(*device, DType::F32, {4, 3});
  auto ma = describe<2>(a), mb = describe<2>(b), mc = describe<2>(c);
  _mlir_ciface_dtf_cuda_gemm_f32(&ma, &mb, &mc, false, false);
  try {
    LibraryContext::throwIfFailed();
    ADD_FAILURE() << "expected a CudaError";
  } catch (const CudaError &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("dtf_cuda_gemm_f32: a [4,5]"),
              std::string::npos)
        << error.what();
  }
  // The error is taken once.
  EXPECT_NO_THROW(LibraryContext::throwIfFailed());
}

/// A convolution case: NHWC input, HWIO filter, strides, TensorFlow
/// padding that cuDNN can express (symmetric) and dilations.
struct ConvCase {
  Shape input, filter;
  int64_t stride;
  kernels::Padding padding;
  int64_t pad;
  int64_t dilation = 1;

  std::vector<int64_t> strides() const { return {1, stride, stride, 1}; }
  std::vector<int64_t> dilations() const { return {1, dilation, dilation, 1}; }
};

const ConvCase kConvCases[] = {
    {{2, 9, 9, 3}, {3, 3, 3, 4}, 1, kernels::Padding::Same, 1},
    {{2, 9, 9, 3}, {5, 5, 3, 2}, 1, kernels::Padding::Same, 2},
    {{3, 10, 8, 2}, {3, 3, 2, 5}, 2, kernels::Padding::Valid, 0},
    {{1, 28, 28, 1}, {5, 5, 1, 8}, 1, kernels::Padding::Same, 2},
    // A 3x3 filter dilated by 2 spans 5x5: SAME pads 2 on each side.
    {{2, 9, 9, 3}, {3, 3, 3, 4}, 1, kernels::Padding::Same, 2, 2},
    {{2, 11, 10, 2}, {3, 3, 2, 3}, 1, kernels::Padding::Valid, 0, 3},
};

TEST_F(LibraryTest, ConvolutionMatchesConv2D) {
  for (const ConvCase &c : kConvCases) {
    Tensor x = uniform(DType::F32, c.input, -1, 1, 3);
    Tensor w = uniform(DType::F32, c.filter, -1, 1, 4);
    Tensor expected =
        kernels::conv2d(x, w, c.strides(), c.padding, c.dilations());
    DeviceTensor dx = upload(x), dw = upload(toOHWI(w));
    DeviceTensor dy(*device, DType::F32, expected.shape());
    auto mx = describe<4>(dx), mw = describe<4>(dw), my = describe<4>(dy);
    _mlir_ciface_dtf_cuda_conv2d_f32(&mx, &mw, &my, c.stride, c.stride, c.pad,
                                     c.pad, c.dilation, c.dilation);
    LibraryContext::throwIfFailed();
    expectClose(dy.toHost(), expected, "conv2d " + shapeToString(c.input));
  }
}

TEST_F(LibraryTest, ConvolutionGradientsMatchTheCPU) {
  for (const ConvCase &c : kConvCases) {
    Tensor x = uniform(DType::F32, c.input, -1, 1, 5);
    Tensor w = uniform(DType::F32, c.filter, -1, 1, 6);
    Shape outShape =
        kernels::conv2d(x, w, c.strides(), c.padding, c.dilations()).shape();
    Tensor dy = uniform(DType::F32, outShape, -1, 1, 7);

    DeviceTensor ddy = upload(dy), dw = upload(toOHWI(w)), dx = upload(x);
    DeviceTensor gradInput(*device, DType::F32, c.input);
    auto mw = describe<4>(dw), mdy = describe<4>(ddy),
         mgi = describe<4>(gradInput);
    _mlir_ciface_dtf_cuda_conv2d_backprop_input_f32(&mw, &mdy, &mgi, c.stride,
                                                    c.stride, c.pad, c.pad,
                                                    c.dilation, c.dilation);
    LibraryContext::throwIfFailed();
    expectClose(gradInput.toHost(),
                kernels::conv2d_backprop_input(c.input, w, dy, c.strides(),
                                               c.padding, c.dilations()),
                "conv2d_backprop_input " + shapeToString(c.input));

    Shape ohwi = {c.filter[3], c.filter[0], c.filter[1], c.filter[2]};
    DeviceTensor gradFilter(*device, DType::F32, ohwi);
    auto mx = describe<4>(dx), mgf = describe<4>(gradFilter);
    _mlir_ciface_dtf_cuda_conv2d_backprop_filter_f32(&mx, &mdy, &mgf, c.stride,
                                                     c.stride, c.pad, c.pad,
                                                     c.dilation, c.dilation);
    LibraryContext::throwIfFailed();
    expectClose(toHWIO(gradFilter.toHost()),
                kernels::conv2d_backprop_filter(x, c.filter, dy, c.strides(),
                                                c.padding, c.dilations()),
                "conv2d_backprop_filter " + shapeToString(c.input));
  }
}

struct PoolCase {
  Shape input;
  int64_t window, stride;
  kernels::Padding padding;
  int64_t pad;
};

const PoolCase kPoolCases[] = {
    {{2, 28, 28, 4}, 2, 2, kernels::Padding::Same, 0},
    {{2, 14, 14, 3}, 2, 2, kernels::Padding::Valid, 0},
    {{3, 9, 9, 2}, 3, 1, kernels::Padding::Same, 1},
    {{1, 11, 7, 5}, 3, 2, kernels::Padding::Valid, 0},
};

TEST_F(LibraryTest, MaxPoolingMatchesTheCPU) {
  for (const PoolCase &c : kPoolCases) {
    Tensor x = uniform(DType::F32, c.input, -1, 1, 8);
    std::vector<int64_t> ksize = {1, c.window, c.window, 1};
    std::vector<int64_t> strides = {1, c.stride, c.stride, 1};
    Tensor y = kernels::max_pool(x, ksize, strides, c.padding);
    Tensor dy = uniform(DType::F32, y.shape(), -1, 1, 9);

    DeviceTensor dx = upload(x);
    DeviceTensor dyOut(*device, DType::F32, y.shape());
    auto mx = describe<4>(dx), my = describe<4>(dyOut);
    _mlir_ciface_dtf_cuda_max_pool_f32(&mx, &my, c.window, c.window, c.stride,
                                       c.stride, c.pad, c.pad);
    LibraryContext::throwIfFailed();
    expectClose(dyOut.toHost(), y, "max_pool " + shapeToString(c.input));

    DeviceTensor ddy = upload(dy);
    DeviceTensor grad(*device, DType::F32, c.input);
    auto mdy = describe<4>(ddy), mg = describe<4>(grad);
    _mlir_ciface_dtf_cuda_max_pool_grad_f32(&mx, &my, &mdy, &mg, c.window,
                                            c.window, c.stride, c.stride,
                                            c.pad, c.pad);
    LibraryContext::throwIfFailed();
    expectClose(grad.toHost(),
                kernels::max_pool_grad(x, y, dy, ksize, strides, c.padding),
                "max_pool_grad " + shapeToString(c.input));
  }
}

TEST(LibraryContextTest, CallsOutsideAContextFail) {
  // No device is needed to see this error.
  DTFMemRef2DF32 empty{nullptr, nullptr, 0, {0, 0}, {0, 1}};
  _mlir_ciface_dtf_cuda_gemm_f32(&empty, &empty, &empty, false, false);
  try {
    LibraryContext::throwIfFailed();
    ADD_FAILURE() << "expected a CudaError";
  } catch (const CudaError &error) {
    EXPECT_EQ(error.code(), ErrorCode::FailedPrecondition) << error.what();
  }
}

} // namespace
} // namespace dtf::cuda
