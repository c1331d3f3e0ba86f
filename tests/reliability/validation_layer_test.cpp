// The Khronos validation layer really loads and its messages reach the engine: a deliberately
// invalid call (a buffer of size 0, VUID-VkBufferCreateInfo-size-00912) must be reported through
// Device::validation_messages(). Without this, "zero validation messages" elsewhere proves nothing.
#include <fieldflow/engine/engine.hpp>

#include "vulkan/vk_device.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fe = ff::engine;

TEST(ValidationLayer, CleanDeviceOpenReportsNothing) {
    fe::DeviceOptions options;
    options.validation = true;
    fe::Device device = fe::Device::open("cpu", options);
    EXPECT_TRUE(device.validation_messages().empty());
}

TEST(ValidationLayer, InvalidCallIsCaught) {
    fe::DeviceOptions options;
    options.validation = true;
    fe::Device device = fe::Device::open("cpu", options);

    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = 0; // invalid: size must be greater than 0
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkResult result = vkCreateBuffer(device.impl().device(), &info, nullptr, &buffer);
    if (result == VK_SUCCESS && buffer != VK_NULL_HANDLE)
        vkDestroyBuffer(device.impl().device(), buffer, nullptr);

    bool caught = false;
    for (const std::string& m : device.validation_messages())
        if (m.find("VUID-VkBufferCreateInfo-size-00912") != std::string::npos) caught = true;
    EXPECT_TRUE(caught) << "the validation layer did not report a zero-size buffer; messages: "
                        << device.validation_messages().size();
}
