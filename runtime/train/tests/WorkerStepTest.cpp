//===- WorkerStepTest.cpp - --device and where a worker computes ----------===//

#include "runtime/train/WorkerStep.h"

#include <gtest/gtest.h>

namespace dtf::train {
namespace {

TEST(ComputeDeviceTest, ParsesTheWaysTensorFlowNamesADevice) {
  struct Case {
    const char *text;
    bool gpu;
    int ordinal;
  };
  for (Case c : {Case{"CPU", false, 0}, Case{"cpu:0", false, 0},
                 Case{"/device:CPU:0", false, 0}, Case{"/cpu:0", false, 0},
                 Case{"GPU:0", true, 0}, Case{"/device:GPU:3", true, 3},
                 Case{"/gpu:1", true, 1}, Case{"gpu", true, 0}}) {
    SCOPED_TRACE(c.text);
#ifndef DTF_HAVE_CUDA
    if (c.gpu)
      continue;
#endif
    ComputeDevice device = ComputeDevice::parse(c.text);
    EXPECT_EQ(device.gpu, c.gpu);
    EXPECT_EQ(device.ordinal, c.ordinal);
  }
}

TEST(ComputeDeviceTest, RejectsWhatIsNoDeviceOfAWorker) {
  for (auto [text, why] :
       {std::pair<const char *, const char *>{
            "TPU:0", "--device=TPU:0: unknown device type 'TPU'"},
        {"GPU:-1", "--device=GPU:-1: device index '-1' is not a "
                   "non-negative integer; expected CPU or GPU:K"},
        {"GPU:0:1", "--device=GPU:0:1: device index '0:1'"},
        {"/job:worker/device:GPU:0", "expected 'task:N' after the job"},
        {"/job:worker/task:0/device:GPU:0",
         "--device=/job:worker/task:0/device:GPU:0: name the device alone"},
        {"", "--device=: unknown device type ''"},
        {"CPU:1", "--device=CPU:1: a host has one CPU device, CPU:0"}}) {
    try {
      ComputeDevice::parse(text);
      ADD_FAILURE() << text << " parsed";
    } catch (const std::invalid_argument &error) {
      EXPECT_NE(std::string(error.what()).find(why), std::string::npos)
          << error.what();
    }
  }
}

#ifndef DTF_HAVE_CUDA
TEST(ComputeDeviceTest, AGpuNeedsTheCudaRuntime) {
  try {
    ComputeDevice::parse("GPU:0");
    ADD_FAILURE() << "GPU:0 parsed without the CUDA runtime";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("built without the CUDA runtime"),
              std::string::npos)
        << error.what();
  }
}
#endif

} // namespace
} // namespace dtf::train
