//===- DeviceTest.cpp - Devices, memory, transfers and kernel launches ----===//

#include "runtime/cuda/tests/GpuTestUtil.h"

#include <cstring>
#include <vector>

namespace dtf::cuda {
namespace {

using testing::uniform;

TEST(DeviceNameTest, ParsesTensorFlowGPUNames) {
  EXPECT_EQ(parseDeviceOrdinal("GPU:0"), 0);
  EXPECT_EQ(parseDeviceOrdinal("GPU"), 0);
  EXPECT_EQ(parseDeviceOrdinal("gpu:3"), 3);
  EXPECT_EQ(parseDeviceOrdinal("/device:GPU:1"), 1);
  EXPECT_EQ(parseDeviceOrdinal("/gpu:2"), 2);
  EXPECT_EQ(parseDeviceOrdinal("/job:worker/task:1/device:GPU:12"), 12);
  EXPECT_EQ(parseDeviceOrdinal("/job:worker/replica:0/task:0/device:gpu:7"), 7);
}

TEST(DeviceNameTest, RejectsOtherNames) {
  for (const char *name : {"", "GPU:", "GPU:-1", "GPU:1x", "CPU:0",
                           "/device:CPU:0", "/job:ps/task:0", "TPU:0"})
    EXPECT_THROW(parseDeviceOrdinal(name), std::invalid_argument) << name;
}

TEST(DeviceTest, MissingDevicesAreClearErrors) {
  int count = deviceCount();
  EXPECT_GE(count, 0);
  try {
    Device::get(count);
    ADD_FAILURE() << "GPU:" << count << " should not exist";
  } catch (const CudaError &error) {
    EXPECT_EQ(error.code(), ErrorCode::FailedPrecondition);
    std::string message = error.what();
    if (count == 0) {
      EXPECT_EQ(message.rfind("no CUDA device: ", 0), 0u) << message;
      EXPECT_EQ(message, "no CUDA device: " + unavailableReason() +
                             " (GPU:0 requested)");
    } else {
      EXPECT_NE(message.find("requested, but only"), std::string::npos)
          << message;
    }
  }
  EXPECT_THROW(Device::get("/device:CPU:0"), std::invalid_argument);
}

TEST(DeviceTest, DescribesItself) {
  DTF_REQUIRE_GPU();
  Device &device = Device::get("/job:worker/task:0/device:GPU:0");
  EXPECT_EQ(&device, &Device::get(0));
  EXPECT_EQ(device.name(), "/device:GPU:0");
  EXPECT_GE(device.computeCapability(), 50);
  EXPECT_NE(device.description().find("sm_"), std::string::npos);
}

TEST(DeviceTest, TensorsRoundTrip) {
  DTF_REQUIRE_GPU();
  Device &device = Device::get(0);
  for (DType dtype : {DType::F32, DType::F64, DType::I32, DType::I64}) {
    Tensor host = uniform(dtype, {3, 7, 5}, -10, 10, 7);
    DeviceTensor onDevice = DeviceTensor::fromHost(device, host);
    EXPECT_EQ(onDevice.shape(), host.shape());
    EXPECT_EQ(onDevice.byteSize(), host.byteSize());
    Tensor back = onDevice.toHost();
    ASSERT_EQ(back.byteSize(), host.byteSize());
    EXPECT_EQ(std::memcmp(back.rawData(), host.rawData(), host.byteSize()), 0)
        << dtypeName(dtype);
  }
  Tensor scalar = Tensor::scalar<float>(2.5f);
  EXPECT_EQ(DeviceTensor::fromHost(device, scalar).toHost().toVector<float>(),
            std::vector<float>{2.5f});
  Tensor empty(DType::F32, {0, 4});
  EXPECT_EQ(DeviceTensor::fromHost(device, empty).toHost().shape(),
            (Shape{0, 4}));
}

TEST(DeviceTest, CopiesAndClearsOnTheDevice) {
  DTF_REQUIRE_GPU();
  Device &device = Device::get(0);
  Tensor host = uniform(DType::F32, {1000}, -1, 1, 3);
  DeviceTensor a = DeviceTensor::fromHost(device, host);
  DeviceTensor b(device, DType::F32, {1000});
  device.copyOnDevice(b.data(), a.data(), a.byteSize());
  EXPECT_EQ(b.toHost().toVector<float>(), host.toVector<float>());
  device.memsetZero(b.data(), b.byteSize());
  EXPECT_EQ(b.toHost().toVector<float>(), std::vector<float>(1000, 0.0f));
}

TEST(DeviceTest, CachesMemoryAcrossSteps) {
  DTF_REQUIRE_GPU();
  Device &device = Device::get(0);
  { DeviceTensor warmup(device, DType::F32, {123, 457}); }
  size_t before = device.memoryStats().backingAllocations;
  for (int step = 0; step < 10; ++step)
    DeviceTensor activation(device, DType::F32, {123, 457});
  EXPECT_EQ(device.memoryStats().backingAllocations, before);
}

// A hand-written PTX kernel: fill(pointer, value, count).
constexpr char kFillPTX[] = R"(
.version 7.0
.target sm_52
.address_size 64
.visible .entry fill(.param .u64 out, .param .f32 value, .param .u32 count)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.f32 %f1, [value];
  ld.param.u32 %r1, [count];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
DONE:
  ret;
}
)";

TEST(DeviceTest, LoadsModulesAndLaunchesKernels) {
  DTF_REQUIRE_GPU();
  Device &device = Device::get(0);
  std::unique_ptr<KernelModule> module =
      device.loadModule(kFillPTX, sizeof(kFillPTX));
  CUfunc_st *fill = module->function("fill");
  DeviceTensor out(device, DType::F32, {1000});
  void *pointer = out.data();
  float value = 1.5f;
  unsigned count = 1000;
  void *parameters[] = {&pointer, &value, &count};
  device.launch(fill, {4, 1, 1}, {256, 1, 1}, 0, parameters);
  EXPECT_EQ(out.toHost().toVector<float>(), std::vector<float>(1000, 1.5f));
  EXPECT_THROW(module->function("missing"), CudaError);
}

TEST(DeviceTest, EveryVisibleGPUWorks) {
  DTF_REQUIRE_GPU();
  for (int ordinal = 0; ordinal < deviceCount(); ++ordinal) {
    Device &device = Device::get(ordinal);
    EXPECT_EQ(device.ordinal(), ordinal);
    Tensor host = uniform(DType::F32, {64}, -1, 1, ordinal);
    EXPECT_EQ(DeviceTensor::fromHost(device, host).toHost().toVector<float>(),
              host.toVector<float>())
        << device.name();
  }
}

} // namespace
} // namespace dtf::cuda
