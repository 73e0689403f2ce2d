//===- DeviceNameTest.cpp - The one parser of TensorFlow device names -----===//

#include "runtime/core/DeviceName.h"

#include <gtest/gtest.h>

namespace dtf {
namespace {

DeviceName full(const char *text) {
  std::string error;
  std::optional<DeviceName> name = DeviceName::parseFull(text, error);
  EXPECT_TRUE(name) << text << ": " << error;
  return name.value_or(DeviceName());
}

std::string fullError(const char *text) {
  std::string error;
  EXPECT_FALSE(DeviceName::parseFull(text, error)) << text << " parsed";
  return error;
}

TEST(DeviceNameTest, ParsesFullNamesOfTasksAndDevices) {
  DeviceName task = full("/job:ps/task:3");
  EXPECT_EQ(task.job, "ps");
  EXPECT_EQ(task.task, 3);
  EXPECT_FALSE(task.hasDevice());
  EXPECT_EQ(task.str(), "/job:ps/task:3");

  DeviceName gpu = full("/job:worker/task:1/device:GPU:2");
  EXPECT_EQ(gpu.taskName(), "/job:worker/task:1");
  EXPECT_TRUE(gpu.isGpu());
  EXPECT_EQ(gpu.index, 2);
  // TensorFlow's in-graph names carry a replica, and legacy lower case.
  EXPECT_EQ(full("/job:worker/replica:0/task:1/device:gpu:2").str(),
            "/job:worker/task:1/device:GPU:2");
}

TEST(DeviceNameTest, SaysWhatIsWrongWithAFullName) {
  EXPECT_EQ(fullError("job:ps/task:0"), "expected a leading '/'");
  EXPECT_EQ(fullError("/task:0"), "expected 'job:NAME' first, got 'task:0'");
  EXPECT_EQ(fullError("/job:chief/task:0"),
            "unknown job 'chief'; expected 'ps' or 'worker'");
  EXPECT_EQ(fullError("/job:ps"), "expected 'task:N' after the job, got ''");
  EXPECT_EQ(fullError("/job:ps/task:-1"),
            "task index '-1' is not a non-negative integer");
  EXPECT_EQ(fullError("/job:ps/replica:x/task:0"),
            "replica index 'x' is not a non-negative integer");
  EXPECT_EQ(fullError("/job:worker/task:0/gpu:0"),
            "expected 'device:TYPE:K' after the task, got 'gpu:0'");
  EXPECT_EQ(fullError("/job:worker/task:0/device:TPU:0"),
            "unknown device type 'TPU'; expected 'CPU' or 'GPU'");
  EXPECT_EQ(fullError("/job:worker/task:0/device:GPU"),
            "device index '' is not a non-negative integer");
  EXPECT_EQ(fullError("/job:worker/task:0/device:GPU:0/replica:0"),
            "unexpected component 'replica:0' after the device");
}

TEST(DeviceNameTest, ParsesADeviceInEachSpelling) {
  for (auto [text, canonical] :
       {std::pair<const char *, const char *>{"CPU", "/device:CPU:0"},
        {"gpu", "/device:GPU:0"},
        {"GPU:3", "/device:GPU:3"},
        {"/gpu:1", "/device:GPU:1"},
        {"/device:cpu:0", "/device:CPU:0"},
        {"/job:worker/task:2/device:GPU:1",
         "/job:worker/task:2/device:GPU:1"}}) {
    std::string error;
    std::optional<DeviceName> name = DeviceName::parseDevice(text, error);
    ASSERT_TRUE(name) << text << ": " << error;
    EXPECT_EQ(name->str(), canonical) << text;
  }
  std::string error;
  EXPECT_FALSE(DeviceName::parseDevice("/job:ps/task:0", error));
  EXPECT_EQ(error, "'/job:ps/task:0' names a task, not a device on it");
  EXPECT_FALSE(DeviceName::parseDevice("GPU:", error));
  EXPECT_EQ(error, "device index '' is not a non-negative integer");
  EXPECT_FALSE(DeviceName::parseDevice("TPU:0", error));
}

} // namespace
} // namespace dtf
