//===- ConvTest.cpp - conv2d and its backprops vs direct loops ------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

using namespace dtf;
using namespace dtf::kernels;
using dtf::testing::expectInvalidArgument;
using dtf::testing::expectTensorEq;
using dtf::testing::expectTensorNear;
using dtf::testing::randomTensor;

namespace {

Tensor f32(Shape shape, std::vector<float> values) {
  return Tensor::fromVector<float>(std::move(shape), values);
}

/// [1,n,n,1] holding 1..n*n.
Tensor counting(int64_t n) {
  std::vector<float> values(n * n);
  for (int64_t i = 0; i < n * n; ++i)
    values[i] = static_cast<float>(i + 1);
  return f32({1, n, n, 1}, values);
}

struct ConvCase {
  int64_t n, h, w, cin, kh, kw, cout, sh, sw;
  Padding padding;
  int64_t dh = 1, dw = 1;
};

/// Output size and leading padding written out from TensorFlow's
/// documentation, independently of the kernel's implementation.
void referenceWindow(int64_t in, int64_t k, int64_t s, Padding padding,
                     int64_t &out, int64_t &padBefore) {
  if (padding == Padding::Valid) {
    out = (in - k) / s + 1;
    padBefore = 0;
  } else {
    out = (in + s - 1) / s;
    int64_t total = std::max<int64_t>((out - 1) * s + k - in, 0);
    padBefore = total / 2;
  }
}

/// The cells a filter of k taps `d` apart spans (TensorFlow's atrous
/// convolution).
int64_t span(int64_t k, int64_t d) { return (k - 1) * d + 1; }

/// Direct-loop reference: visits every (output, filter tap) pair and calls
/// tap(inputIndex, filterIndex, outputIndex) for taps inside the input.
template <typename Tap> void forEachTap(const ConvCase &c, Tap tap) {
  int64_t oh, ow, padTop, padLeft;
  referenceWindow(c.h, span(c.kh, c.dh), c.sh, c.padding, oh, padTop);
  referenceWindow(c.w, span(c.kw, c.dw), c.sw, c.padding, ow, padLeft);
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t i = 0; i < c.kh; ++i)
          for (int64_t j = 0; j < c.kw; ++j) {
            int64_t iy = y * c.sh - padTop + i * c.dh,
                    ix = x * c.sw - padLeft + j * c.dw;
            if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w)
              continue;
            for (int64_t ci = 0; ci < c.cin; ++ci)
              for (int64_t co = 0; co < c.cout; ++co)
                tap(((n * c.h + iy) * c.w + ix) * c.cin + ci,
                    ((i * c.kw + j) * c.cin + ci) * c.cout + co,
                    ((n * oh + y) * ow + x) * c.cout + co);
          }
}

Shape outputShape(const ConvCase &c) {
  int64_t oh, ow, pad;
  referenceWindow(c.h, span(c.kh, c.dh), c.sh, c.padding, oh, pad);
  referenceWindow(c.w, span(c.kw, c.dw), c.sw, c.padding, ow, pad);
  return {c.n, oh, ow, c.cout};
}

std::vector<int64_t> strides(const ConvCase &c) { return {1, c.sh, c.sw, 1}; }
std::vector<int64_t> dilations(const ConvCase &c) { return {1, c.dh, c.dw, 1}; }

template <typename T>
void checkAgainstReference(const ConvCase &c, DType dtype, double tolerance,
                           uint64_t seed) {
  Tensor input = randomTensor(dtype, {c.n, c.h, c.w, c.cin}, seed);
  Tensor filter = randomTensor(dtype, {c.kh, c.kw, c.cin, c.cout}, seed + 1);
  Tensor dy = randomTensor(dtype, outputShape(c), seed + 2);

  Tensor out(dtype, outputShape(c));
  Tensor dx(dtype, input.shape());
  Tensor dfilter(dtype, filter.shape());
  const T *pi = input.data<T>(), *pf = filter.data<T>(), *pdy = dy.data<T>();
  T *po = out.data<T>(), *pdx = dx.data<T>(), *pdf = dfilter.data<T>();
  forEachTap(c, [&](int64_t in, int64_t f, int64_t o) {
    po[o] += pi[in] * pf[f];
    pdx[in] += pdy[o] * pf[f];
    pdf[f] += pdy[o] * pi[in];
  });

  expectTensorNear<T>(
      conv2d(input, filter, strides(c), c.padding, dilations(c)), out,
      tolerance);
  expectTensorNear<T>(conv2d_backprop_input(input.shape(), filter, dy,
                                            strides(c), c.padding,
                                            dilations(c)),
                      dx, tolerance);
  expectTensorNear<T>(conv2d_backprop_filter(input, filter.shape(), dy,
                                             strides(c), c.padding,
                                             dilations(c)),
                      dfilter, tolerance);
}

} // namespace

TEST(Conv2D, ValidStride1) {
  // Filter [[1,0],[0,1]] adds each pixel to its lower-right neighbour.
  Tensor out = conv2d(counting(3), f32({2, 2, 1, 1}, {1, 0, 0, 1}),
                      {1, 1, 1, 1}, Padding::Valid);
  expectTensorEq<float>(out, f32({1, 2, 2, 1}, {6, 8, 12, 14}));
}

TEST(Conv2D, ValidStride2) {
  Tensor ones = Tensor::filled(DType::F32, {3, 3, 1, 1}, 1);
  Tensor out = conv2d(counting(5), ones, {1, 2, 2, 1}, Padding::Valid);
  expectTensorEq<float>(out, f32({1, 2, 2, 1}, {63, 81, 153, 171}));
}

TEST(Conv2D, SameStride2PadsBothSides) {
  // ceil(5/2) = 3 outputs; padding 2 in total, 1 on each side: window rows
  // are {0,1}, {1,2,3}, {3,4}.
  Tensor ones = Tensor::filled(DType::F32, {3, 3, 1, 1}, 1);
  Tensor out = conv2d(counting(5), ones, {1, 2, 2, 1}, Padding::Same);
  expectTensorEq<float>(
      out, f32({1, 3, 3, 1}, {16, 33, 28, 69, 117, 87, 76, 123, 88}));
}

TEST(Conv2D, SameOddPaddingGoesBottomRight) {
  // A 2x2 window at stride 1 needs one padding row/column, placed after.
  Tensor ones = Tensor::filled(DType::F32, {2, 2, 1, 1}, 1);
  Tensor out = conv2d(counting(4), ones, {1, 1, 1, 1}, Padding::Same);
  ASSERT_EQ(out.shape(), (Shape{1, 4, 4, 1}));
  const float *o = out.data<float>();
  EXPECT_EQ(o[0], 1 + 2 + 5 + 6);
  EXPECT_EQ(o[3], 4 + 8);
  EXPECT_EQ(o[12], 13 + 14);
  EXPECT_EQ(o[15], 16);
}

TEST(Conv2D, DilatedValid) {
  // A 2x2 filter of ones dilated by 2 sums the corners of each 3x3 window:
  // x[i][j] + x[i][j+2] + x[i+2][j] + x[i+2][j+2] = 20i + 4j + 28.
  Tensor ones = Tensor::filled(DType::F32, {2, 2, 1, 1}, 1);
  Tensor out =
      conv2d(counting(5), ones, {1, 1, 1, 1}, Padding::Valid, {1, 2, 2, 1});
  expectTensorEq<float>(
      out, f32({1, 3, 3, 1}, {28, 32, 36, 48, 52, 56, 68, 72, 76}));
}

TEST(Conv2D, DilatedSamePadsForTheSpan) {
  // Two taps 3 apart span 4 cells: padding 3 in total, 1 before and 2
  // after, so output (i, j) sums x at rows {i-1, i+2} and columns
  // {j-1, j+2} inside the 4x4 input.
  Tensor ones = Tensor::filled(DType::F32, {2, 2, 1, 1}, 1);
  Tensor out =
      conv2d(counting(4), ones, {1, 1, 1, 1}, Padding::Same, {1, 3, 3, 1});
  ASSERT_EQ(out.shape(), (Shape{1, 4, 4, 1}));
  const float *o = out.data<float>();
  EXPECT_EQ(o[0], 11);              // x[2][2]
  EXPECT_EQ(o[5], 1 + 4 + 13 + 16); // x[0][0], x[0][3], x[3][0], x[3][3]
  EXPECT_EQ(o[15], 11);             // x[2][2]
}

TEST(Conv2D, PointwiseMixesChannels) {
  Tensor input = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor filter = f32({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  expectTensorEq<float>(conv2d(input, filter, {1, 1, 1, 1}, Padding::Same),
                        f32({1, 1, 2, 3}, {9, 12, 15, 19, 26, 33}));
}

TEST(Conv2D, MatchesDirectLoopsOnRandomShapes) {
  const ConvCase cases[] = {
      {2, 7, 6, 3, 3, 3, 4, 1, 1, Padding::Same},
      {2, 7, 6, 3, 3, 3, 4, 2, 2, Padding::Same},
      {2, 7, 6, 3, 3, 2, 4, 2, 1, Padding::Valid},
      {1, 8, 8, 2, 5, 5, 3, 3, 2, Padding::Same},
      {3, 9, 5, 1, 4, 2, 2, 2, 3, Padding::Valid},
      {2, 5, 5, 4, 1, 1, 3, 1, 1, Padding::Valid},
      {2, 5, 5, 4, 1, 1, 3, 2, 2, Padding::Same},
      {1, 3, 3, 2, 5, 5, 2, 1, 1, Padding::Same},
      // Dilated, as TensorFlow allows them: stride 1.
      {2, 9, 8, 3, 3, 3, 4, 1, 1, Padding::Same, 2, 2},
      {2, 9, 8, 3, 3, 2, 4, 1, 1, Padding::Valid, 3, 2},
      {1, 7, 7, 2, 2, 3, 3, 1, 1, Padding::Same, 4, 1},
      {2, 5, 5, 4, 1, 1, 3, 1, 1, Padding::Same, 2, 2},
      // The kernels' index math also holds for both at once, which the
      // dialect refuses, as tf.nn.convolution does.
      {2, 9, 9, 2, 3, 3, 2, 2, 2, Padding::Same, 2, 2},
  };
  uint64_t seed = 100;
  for (const ConvCase &c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "N=" << c.n << " H=" << c.h << " W=" << c.w << " K=" << c.kh
                 << "x" << c.kw << " stride=" << c.sh << "," << c.sw
                 << " dilation=" << c.dh << "," << c.dw
                 << (c.padding == Padding::Same ? " SAME" : " VALID"));
    checkAgainstReference<double>(c, DType::F64, 1e-12, seed);
    checkAgainstReference<float>(c, DType::F32, 1e-4, seed);
    seed += 10;
  }
}

TEST(Conv2D, LargeBatchSpansSeveralIm2colChunks) {
  // 16x16 outputs x 3*3*64 taps per image: the 4M-element im2col budget
  // holds 28 images, so 30 images take two chunks (and the filter gradient
  // must accumulate across them).
  ConvCase c{30, 16, 16, 64, 3, 3, 8, 1, 1, Padding::Same};
  checkAgainstReference<double>(c, DType::F64, 1e-9, 7);
}

TEST(Conv2D, ShapeErrors) {
  Tensor input(DType::F32, {1, 5, 5, 3});
  expectInvalidArgument(
      [&] {
        conv2d(input, Tensor(DType::F32, {3, 3, 2, 4}), {1, 1, 1, 1},
               Padding::Same);
      },
      {"conv2d", "[1,5,5,3]", "[3,3,2,4]"});
  expectInvalidArgument(
      [&] {
        conv2d(input, Tensor(DType::F32, {3, 3, 3, 4}), {1, 1, 1},
               Padding::Same);
      },
      {"strides"});
  expectInvalidArgument(
      [&] {
        conv2d(input, Tensor(DType::F32, {3, 3, 3, 4}), {1, 1, 1, 1},
               Padding::Same, {1, 0, 1, 1});
      },
      {"dilations", "{1, 0, 1, 1}"});
  expectInvalidArgument(
      [&] {
        conv2d(input, Tensor(DType::F32, {3, 3, 3, 4}), {1, 1, 1, 1},
               Padding::Valid, {1, 3, 3, 1});
      },
      {"window 7 does not fit"});
  expectInvalidArgument(
      [&] {
        conv2d(input, Tensor(DType::F32, {7, 7, 3, 4}), {1, 1, 1, 1},
               Padding::Valid);
      },
      {"does not fit"});
  expectInvalidArgument(
      [&] {
        conv2d_backprop_input({1, 5, 5, 3}, Tensor(DType::F32, {3, 3, 3, 4}),
                              Tensor(DType::F32, {1, 5, 5, 4}), {1, 2, 2, 1},
                              Padding::Same);
      },
      {"dy", "[1,3,3,4]", "f32[1,5,5,4]"});
  expectInvalidArgument(
      [&] {
        conv2d_backprop_input({1, -5, 5, 3}, Tensor(DType::F32, {3, 3, 3, 4}),
                              Tensor(DType::F32, {1, 5, 5, 4}), {1, 1, 1, 1},
                              Padding::Same);
      },
      {"[1,-5,5,3]"});
  expectInvalidArgument(
      [&] {
        conv2d_backprop_filter(input, {3, 3, 3, 4},
                               Tensor(DType::F64, {1, 5, 5, 4}), {1, 1, 1, 1},
                               Padding::Same);
      },
      {"dtype mismatch"});
}

TEST(Padding, Parse) {
  EXPECT_EQ(parse_padding("SAME"), Padding::Same);
  EXPECT_EQ(parse_padding("VALID"), Padding::Valid);
  expectInvalidArgument([] { parse_padding("same"); }, {"\"same\""});
}
