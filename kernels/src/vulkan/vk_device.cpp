#include "vk_device.hpp"


#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iostream>

namespace ff::engine {
namespace detail {

const char* vk_result_name(VkResult r) {
    switch (r) {
#define FF_CASE(x) case x: return #x;
        FF_CASE(VK_SUCCESS) FF_CASE(VK_NOT_READY) FF_CASE(VK_TIMEOUT) FF_CASE(VK_INCOMPLETE)
        FF_CASE(VK_ERROR_OUT_OF_HOST_MEMORY) FF_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        FF_CASE(VK_ERROR_INITIALIZATION_FAILED) FF_CASE(VK_ERROR_DEVICE_LOST)
        FF_CASE(VK_ERROR_MEMORY_MAP_FAILED) FF_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        FF_CASE(VK_ERROR_EXTENSION_NOT_PRESENT) FF_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        FF_CASE(VK_ERROR_INCOMPATIBLE_DRIVER) FF_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        FF_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED) FF_CASE(VK_ERROR_FRAGMENTED_POOL)
        FF_CASE(VK_ERROR_UNKNOWN) FF_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        FF_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef FF_CASE
    default: return "VkResult(unknown)";
    }
}

void vk_check(VkResult r, const std::string& what) {
    if (r == VK_SUCCESS) return;
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        throw EngineError("out of device memory (" + what + ")");
    if (r == VK_ERROR_DEVICE_LOST)
        throw EngineError("the Vulkan device was lost (" + what + ")");
    throw EngineError(what + " failed: " + vk_result_name(r));
}

// ---- Buffer ---------------------------------------------------------------------------------

Buffer::Buffer(DeviceImpl& device, VkDeviceSize size, MemoryKind kind, const std::string& name,
               BufferAccess access)
    : device_(&device), size_(size) {
    if (size == 0) size = 4; // Vulkan forbids empty buffers; callers may ask for none
    const uint64_t range = device.properties().limits.maxStorageBufferRange;
    if (access == BufferAccess::address && !device.buffer_addresses())
        throw EngineError("buffer '" + name + "' needs " + std::to_string(size) +
                          " bytes, more than one storage buffer may hold on this device (" +
                          std::to_string(device.max_buffer_bytes()) +
                          "), and the device cannot reach buffers by address (no bufferDeviceAddress)");
    if (access == BufferAccess::descriptor && size > device.max_buffer_bytes())
        throw EngineError("buffer '" + name + "' needs " + std::to_string(size) + " bytes, more than " +
                          (device.max_buffer_bytes() < range
                               ? "the cap on buffers (max_buffer_bytes = " + std::to_string(device.max_buffer_bytes())
                               : "the device's maxStorageBufferRange (" + std::to_string(range)) +
                          ")");
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (access == BufferAccess::address) bi.usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    vk_check(vkCreateBuffer(device.device(), &bi, nullptr, &buffer_), "creating buffer '" + name + "'");

    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device.device(), buffer_, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    try {
        ai.memoryTypeIndex = device.memory_type(req.memoryTypeBits, kind);
    } catch (...) {
        release();
        throw;
    }
    // Each buffer has an allocation of its own; saying so lets the driver lay the memory out for
    // that one buffer, which pays where a step's samples reach much memory at random: on the H100 the
    // 8192x8192 photo's step (~1 GB of image and encoding state) took a quarter less time
    // (bench/archive/RESULTS.md, "the GPU's clocks on large photos, dedicated allocations").
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = buffer_;
    ai.pNext = &dedicated;
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    if (access == BufferAccess::address) {
        flags.pNext = ai.pNext;
        ai.pNext = &flags;
    }
    VkResult r = vkAllocateMemory(device.device(), &ai, nullptr, &memory_);
    if (r != VK_SUCCESS) {
        release();
        if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
            throw EngineError("out of device memory allocating " + std::to_string(req.size) +
                              " bytes for '" + name + "' (" + vk_result_name(r) + ")");
        vk_check(r, "allocating memory for '" + name + "'");
    }
    allocated_ = req.size;
    device.add_allocated(int64_t(allocated_));
    r = vkBindBufferMemory(device.device(), buffer_, memory_, 0);
    if (r == VK_SUCCESS && kind != MemoryKind::device_local)
        r = vkMapMemory(device.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_);
    if (r != VK_SUCCESS) {
        release();
        vk_check(r, "binding memory for '" + name + "'");
    }
    if (access == BufferAccess::address) {
        VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
        info.buffer = buffer_;
        address_ = vkGetBufferDeviceAddress(device.device(), &info);
    }
}

void Buffer::release() {
    if (!device_) return;
    if (buffer_) vkDestroyBuffer(device_->device(), buffer_, nullptr);
    if (memory_) {
        vkFreeMemory(device_->device(), memory_, nullptr); // unmaps implicitly
        device_->add_allocated(-int64_t(allocated_));
    }
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
    allocated_ = 0;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept { *this = std::move(o); }

Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        release();
        device_ = o.device_;
        buffer_ = o.buffer_;
        memory_ = o.memory_;
        size_ = o.size_;
        allocated_ = o.allocated_;
        address_ = o.address_;
        mapped_ = o.mapped_;
        o.buffer_ = VK_NULL_HANDLE;
        o.memory_ = VK_NULL_HANDLE;
        o.mapped_ = nullptr;
        o.allocated_ = 0;
    }
    return *this;
}

// ---- DescriptorSet --------------------------------------------------------------------------

DescriptorSet::DescriptorSet(DeviceImpl& device, const Kernel& kernel,
                             const std::vector<const Buffer*>& buffers)
    : device_(&device), kernel_(&kernel) {
    if (buffers.size() != kernel.bindings)
        throw EngineError("internal: kernel " + kernel.name + " takes " +
                          std::to_string(kernel.bindings) + " buffers, got " +
                          std::to_string(buffers.size()));
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kernel.bindings};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = 1;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &ps;
    vk_check(vkCreateDescriptorPool(device.device(), &pi, nullptr, &pool_), "creating a descriptor pool");
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = pool_;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &kernel.set_layout;
    VkResult r = vkAllocateDescriptorSets(device.device(), &ai, &set_);
    if (r != VK_SUCCESS) {
        release();
        vk_check(r, "allocating a descriptor set");
    }
    std::vector<VkDescriptorBufferInfo> infos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    const VkDeviceSize range = device.properties().limits.maxStorageBufferRange;
    for (size_t i = 0; i < buffers.size(); ++i) {
        // A buffer reached by address is still bound (the layout has its binding), within the
        // range a descriptor may cover; its kernel reads it through the address.
        infos[i] = {buffers[i]->handle(), 0, buffers[i]->size() > range ? range : VK_WHOLE_SIZE};
        if (buffers[i]->address()) {
            if (address_ && address_ != buffers[i]->address())
                throw EngineError("internal: kernel " + kernel.name + " is bound to two buffers reached by address");
            address_ = buffers[i]->address();
        }
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set_;
        writes[i].dstBinding = uint32_t(i);
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(device.device(), uint32_t(writes.size()), writes.data(), 0, nullptr);
}

void DescriptorSet::release() {
    if (device_ && pool_) vkDestroyDescriptorPool(device_->device(), pool_, nullptr);
    pool_ = VK_NULL_HANDLE;
    set_ = VK_NULL_HANDLE;
}

DescriptorSet::~DescriptorSet() { release(); }

DescriptorSet::DescriptorSet(DescriptorSet&& o) noexcept { *this = std::move(o); }

DescriptorSet& DescriptorSet::operator=(DescriptorSet&& o) noexcept {
    if (this != &o) {
        release();
        device_ = o.device_;
        kernel_ = o.kernel_;
        pool_ = o.pool_;
        set_ = o.set_;
        address_ = o.address_;
        o.pool_ = VK_NULL_HANDLE;
        o.set_ = VK_NULL_HANDLE;
    }
    return *this;
}

void DescriptorSet::dispatch(VkCommandBuffer cb, const PushConstants& pc, uint32_t groups_x) const {
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kernel_->pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kernel_->layout, 0, 1, &set_, 0,
                            nullptr);
    PushConstants pushed = pc;
    pushed.buffer_address_lo = uint32_t(address_);
    pushed.buffer_address_hi = uint32_t(address_ >> 32);
    vkCmdPushConstants(cb, kernel_->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pushed, &pushed);
    vkCmdDispatch(cb, groups_x, 1, 1);
}

void compute_barrier(VkCommandBuffer cb) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         1, &mb, 0, nullptr, 0, nullptr);
}

// ---- CommandRunner --------------------------------------------------------------------------

namespace {
// A resettable command pool with `count` primary command buffers and as many fences; on failure
// nothing is left behind.
void create_command_buffers(DeviceImpl& device, uint32_t count, VkCommandPool& pool, VkCommandBuffer* cbs,
                            VkFence* fences) {
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = device.queue_family();
    vk_check(vkCreateCommandPool(device.device(), &pi, nullptr, &pool), "creating a command pool");
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = count;
    VkResult r = vkAllocateCommandBuffers(device.device(), &ai, cbs);
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    for (uint32_t i = 0; i < count && r == VK_SUCCESS; ++i) r = vkCreateFence(device.device(), &fi, nullptr, &fences[i]);
    if (r != VK_SUCCESS) {
        for (uint32_t i = 0; i < count; ++i)
            if (fences[i]) vkDestroyFence(device.device(), fences[i], nullptr);
        vkDestroyCommandPool(device.device(), pool, nullptr);
        pool = VK_NULL_HANDLE;
        vk_check(r, "allocating command buffers");
    }
}

// Records `record` into `cb` for one submit, then resets `fence` for it.
void record_for_submit(VkDevice device, VkCommandBuffer cb, VkFence fence,
                       const std::function<void(VkCommandBuffer)>& record) {
    vk_check(vkResetCommandBuffer(cb, 0), "resetting a command buffer");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk_check(vkBeginCommandBuffer(cb, &bi), "beginning a command buffer");
    record(cb);
    vk_check(vkEndCommandBuffer(cb), "recording commands");
    vk_check(vkResetFences(device, 1, &fence), "resetting a fence");
}
} // namespace

CommandRunner::CommandRunner(DeviceImpl& device) : device_(device) {
    create_command_buffers(device, 1, pool_, &cb_, &fence_);
}

CommandRunner::~CommandRunner() {
    if (fence_) vkDestroyFence(device_.device(), fence_, nullptr);
    if (pool_) vkDestroyCommandPool(device_.device(), pool_, nullptr);
}

void CommandRunner::run(const std::function<void(VkCommandBuffer)>& record) {
    record_for_submit(device_.device(), cb_, fence_, record);
    device_.submit_and_wait(cb_, fence_);
}

PipelinedRunner::PipelinedRunner(DeviceImpl& device) : device_(device) {
    create_command_buffers(device, kSlots, pool_, cb_, fence_);
}

PipelinedRunner::~PipelinedRunner() {
    drain();
    for (VkFence f : fence_) vkDestroyFence(device_.device(), f, nullptr);
    vkDestroyCommandPool(device_.device(), pool_, nullptr);
}

void PipelinedRunner::drain() noexcept {
    for (uint32_t i = 0; i < kSlots; ++i) {
        if (in_flight_[i]) vkWaitForFences(device_.device(), 1, &fence_[i], VK_TRUE, UINT64_MAX);
        in_flight_[i] = false;
    }
}

void PipelinedRunner::wait(uint32_t slot) {
    if (!in_flight_[slot]) return;
    vk_check(vkWaitForFences(device_.device(), 1, &fence_[slot], VK_TRUE, UINT64_MAX), "waiting for the device");
    in_flight_[slot] = false;
}

void PipelinedRunner::submit(uint32_t slot, const std::function<void(VkCommandBuffer)>& record) {
    wait(slot);
    record_for_submit(device_.device(), cb_[slot], fence_[slot], record);
    device_.submit(cb_[slot], fence_[slot]);
    in_flight_[slot] = true;
}

} // namespace detail

// ---- DeviceImpl -----------------------------------------------------------------------------

namespace {

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v && (std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0 || std::strcmp(v, "on") == 0);
}

VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                              VkDebugUtilsMessageTypeFlagsEXT,
                                              const VkDebugUtilsMessengerCallbackDataEXT* data,
                                              void* user) {
    std::string text = std::string(severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
                                       ? "validation error: "
                                       : "validation warning: ") +
                       (data && data->pMessage ? data->pMessage : "(no message)");
    static_cast<DeviceImpl*>(user)->add_message(text);
    return VK_FALSE;
}

std::string type_name(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

bool has_extension(VkPhysicalDevice pd, const char* name) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
    for (const auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

int compute_queue_family(VkPhysicalDevice pd) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> q(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q.data());
    for (uint32_t i = 0; i < n; ++i)
        if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return int(i);
    return -1;
}

// The device features the tensor-core path needs, as one chain of Vulkan structures: queried by
// coopmat_missing, switched on by DeviceImpl when it takes that path. glslang declares the
// VulkanMemoryModel capability, with device-scope accesses, for GL_NV_cooperative_matrix shaders.
struct CoopmatFeatures {
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceShaderFloat16Int8Features f16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDeviceVulkanMemoryModelFeatures mm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES};
    VkPhysicalDevice16BitStorageFeatures s16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};

    CoopmatFeatures() {
        cm.pNext = &f16;
        f16.pNext = &mm;
        mm.pNext = &s16;
    }
    CoopmatFeatures(const CoopmatFeatures&) = delete; // the chain points into the object itself
    CoopmatFeatures& operator=(const CoopmatFeatures&) = delete;

    // The chain's head, its last structure pointing at `next`.
    void* chain(void* next) {
        s16.pNext = next;
        return &cm;
    }
    void enable_all() {
        cm.cooperativeMatrix = VK_TRUE;
        f16.shaderFloat16 = VK_TRUE;
        mm.vulkanMemoryModel = VK_TRUE;
        mm.vulkanMemoryModelDeviceScope = VK_TRUE;
        s16.storageBuffer16BitAccess = VK_TRUE;
    }
};

// Whether the device offers the fp16 x fp16 -> fp32 subgroup shape MxNxK of VK_NV_cooperative_matrix.
bool has_coopmat_shape(VkInstance instance, VkPhysicalDevice pd, uint32_t m, uint32_t n, uint32_t k) {
    auto props_fn = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
        vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
    if (!props_fn) return false;
    uint32_t count = 0;
    if (props_fn(pd, &count, nullptr) != VK_SUCCESS) return false;
    std::vector<VkCooperativeMatrixPropertiesNV> props(count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
    if (props_fn(pd, &count, props.data()) != VK_SUCCESS) return false;
    for (const auto& p : props)
        if (p.MSize == m && p.NSize == n && p.KSize == k && p.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
            p.BType == VK_COMPONENT_TYPE_FLOAT16_NV && p.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
            p.DType == VK_COMPONENT_TYPE_FLOAT32_NV && p.scope == VK_SCOPE_SUBGROUP_NV)
            return true;
    return false;
}

// The tensor-core path's needs: VK_NV_cooperative_matrix with an fp16 x fp16 -> fp32 16x16x16
// subgroup shape, shaderFloat16 (fp16 shared memory and arithmetic), storageBuffer16BitAccess (the
// fp16 weight copy wide MLPs read from device memory), 32-wide subgroups with
// arithmetic operations in compute shaders (mlp_coopmat.glsl splits a tile into 32-wide subgroups).
// Returns "" if all are there, else what is missing.
std::string coopmat_missing(VkInstance instance, VkPhysicalDevice pd, uint32_t api_version,
                            const VkPhysicalDeviceSubgroupProperties& subgroup) {
    if (!has_extension(pd, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME))
        return VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    if (api_version < VK_API_VERSION_1_2) return "Vulkan 1.2";
    CoopmatFeatures has;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = has.chain(nullptr);
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    if (!has.cm.cooperativeMatrix) return "cooperativeMatrix";
    if (!has.f16.shaderFloat16) return "shaderFloat16";
    if (!has.s16.storageBuffer16BitAccess) return "storageBuffer16BitAccess";
    if (!has.mm.vulkanMemoryModel || !has.mm.vulkanMemoryModelDeviceScope)
        return "vulkanMemoryModel with device scope";
    if (subgroup.subgroupSize != 32) return "32-wide subgroups";
    if (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
        !(subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT))
        return "subgroup arithmetic in compute shaders";
    if (!has_coopmat_shape(instance, pd, 16, 16, 16)) return "an fp16 16x16x16 -> fp32 cooperative matrix shape";
    return "";
}

DeviceInfo describe(VkInstance instance, VkPhysicalDevice pd, uint32_t index) {
    DeviceInfo info;
    info.index = index;
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties basic;
    vkGetPhysicalDeviceProperties(pd, &basic);
    info.name = basic.deviceName;
    info.type = type_name(basic.deviceType);
    std::vector<std::string> missing;
    if (basic.apiVersion < VK_API_VERSION_1_2) {
        missing.push_back("Vulkan 1.2 (device offers " + std::to_string(VK_API_VERSION_MAJOR(basic.apiVersion)) +
                          "." + std::to_string(VK_API_VERSION_MINOR(basic.apiVersion)) + ")");
        info.driver = "version " + std::to_string(basic.driverVersion);
    } else {
        VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        p2.pNext = &subgroup;
        subgroup.pNext = &driver;
        // The multiprocessor count sizes the training step's workgroups where one each is best.
        VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
        if (has_extension(pd, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) driver.pNext = &sm;
        vkGetPhysicalDeviceProperties2(pd, &p2);
        info.multiprocessors = sm.shaderSMCount;
        info.subgroup_size = subgroup.subgroupSize;
        info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
    }
    bool atomic_ext = has_extension(pd, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    if (atomic_ext && basic.apiVersion >= VK_API_VERSION_1_1) {
        VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af{
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
        VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        f2.pNext = &af;
        vkGetPhysicalDeviceFeatures2(pd, &f2);
        info.float_atomics = af.shaderBufferFloat32AtomicAdd == VK_TRUE;
    }
    if (basic.apiVersion >= VK_API_VERSION_1_2) {
        VkPhysicalDeviceShaderAtomicInt64Features ai64{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
        VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        f2.pNext = &ai64;
        vkGetPhysicalDeviceFeatures2(pd, &f2);
        info.int64_atomics = f2.features.shaderInt64 && ai64.shaderBufferInt64Atomics;
    }
    if (!atomic_ext) missing.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    else if (!info.float_atomics) missing.push_back("shaderBufferFloat32AtomicAdd");
    if (compute_queue_family(pd) < 0) missing.push_back("a compute queue");
    // The training step lists the cells it touches with one atomic per subgroup (train_step.comp).
    constexpr VkSubgroupFeatureFlags kBallot = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT;
    if (basic.apiVersion >= VK_API_VERSION_1_2 &&
        (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
         (subgroup.supportedOperations & kBallot) != kBallot))
        missing.push_back("subgroup ballot operations in compute shaders");
    info.cooperative_matrix = basic.apiVersion >= VK_API_VERSION_1_2 &&
                              coopmat_missing(instance, pd, basic.apiVersion, subgroup).empty();
    for (size_t i = 0; i < missing.size(); ++i) info.missing += (i ? ", " : "") + missing[i];
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(pd, &memory);
    for (uint32_t h = 0; h < memory.memoryHeapCount; ++h)
        if (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            info.memory_bytes = std::max<uint64_t>(info.memory_bytes, memory.memoryHeaps[h].size);
    return info;
}

// An instance without layers, for listing devices.
VkInstance plain_instance(VkResult& r) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "fieldflow";
    app.pEngineName = "fieldflow";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    r = vkCreateInstance(&ci, nullptr, &instance);
    return r == VK_SUCCESS ? instance : VK_NULL_HANDLE;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
    uint32_t n = 0;
    if (vkEnumeratePhysicalDevices(instance, &n, nullptr) != VK_SUCCESS) return {};
    std::vector<VkPhysicalDevice> pds(n);
    if (vkEnumeratePhysicalDevices(instance, &n, pds.data()) < 0) return {};
    pds.resize(n);
    return pds;
}

std::string no_driver_message(VkResult r) {
    std::string msg = "no Vulkan driver found (";
    msg += r == VK_SUCCESS ? "no physical devices" : std::string("vkCreateInstance: ") + detail::vk_result_name(r);
    msg += "); install a Vulkan driver, e.g. mesa-vulkan-drivers for the CPU driver lavapipe";
    return msg;
}

} // namespace

DeviceImpl::DeviceImpl(const std::string& selector, const DeviceOptions& options) {
    try {
        create_instance(options.validation || env_flag("FIELDFLOW_VALIDATION"));
        select_and_create_device(selector, options);
        max_buffer_bytes_ = properties_.limits.maxStorageBufferRange;
        uint64_t cap = options.max_buffer_bytes;
        if (const char* env = std::getenv("FIELDFLOW_MAX_BUFFER_BYTES"); cap == 0 && env && *env) {
            char* end = nullptr;
            cap = std::strtoull(env, &end, 10);
            if (*end != '\0' || cap == 0)
                throw EngineError(std::string("FIELDFLOW_MAX_BUFFER_BYTES='") + env + "' is not a positive byte count");
        }
        if (cap > 0) max_buffer_bytes_ = std::min<uint64_t>(max_buffer_bytes_, std::max<uint64_t>(cap, 256));
        const VkPhysicalDeviceLimits& limits = properties_.limits;
        features_ = {.name = info_.name,
                     .coopmat = coopmat_,
                     .narrow_coopmat = narrow_coopmat_,
                     .shared_blocks = shared_blocks_,
                     .fixed_point_gradients = fixed_point_gradients_,
                     .cpu = info_.type == "cpu",
                     .loops_capped = loop_iterations_capped(),
                     .subgroup_size = info_.subgroup_size,
                     .multiprocessors = info_.multiprocessors,
                     .max_shared = limits.maxComputeSharedMemorySize,
                     .max_invocations = limits.maxComputeWorkGroupInvocations,
                     .max_group_count = limits.maxComputeWorkGroupCount[0],
                     .max_buffer_bytes = max_buffer_bytes_,
                     .memory_bytes = info_.memory_bytes};
    } catch (...) {
        if (device_) vkDestroyDevice(device_, nullptr);
        if (messenger_) {
            auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
            if (destroy) destroy(instance_, messenger_, nullptr);
        }
        if (instance_) vkDestroyInstance(instance_, nullptr);
        throw;
    }
}

namespace {
void destroy_kernel(VkDevice device, const detail::Kernel& k) {
    if (k.pipeline) vkDestroyPipeline(device, k.pipeline, nullptr);
    if (k.layout) vkDestroyPipelineLayout(device, k.layout, nullptr);
    if (k.set_layout) vkDestroyDescriptorSetLayout(device, k.set_layout, nullptr);
    if (k.module) vkDestroyShaderModule(device, k.module, nullptr);
}
} // namespace

DeviceImpl::~DeviceImpl() {
    if (device_) {
        vkDeviceWaitIdle(device_);
        for (auto& [key, k] : kernels_) destroy_kernel(device_, *k);
        vkDestroyDevice(device_, nullptr);
    }
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
}

void DeviceImpl::create_instance(bool validation) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "fieldflow";
    app.pEngineName = "fieldflow";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = debug_callback;
    mi.pUserData = this;
    if (validation) {
        uint32_t n = 0;
        vkEnumerateInstanceLayerProperties(&n, nullptr);
        std::vector<VkLayerProperties> layers(n);
        vkEnumerateInstanceLayerProperties(&n, layers.data());
        bool found = std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
            return std::strcmp(l.layerName, layer) == 0;
        });
        if (!found)
            throw EngineError("validation was requested but VK_LAYER_KHRONOS_validation is not "
                              "installed (package vulkan-validationlayers)");
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = &layer;
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = &ext;
        ci.pNext = &mi; // also catches messages from vkCreateInstance / vkDestroyInstance
    }
    VkResult r = vkCreateInstance(&ci, nullptr, &instance_);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED)
        throw EngineError(no_driver_message(r));
    detail::vk_check(r, "vkCreateInstance");
    if (validation) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
        if (!create) throw EngineError("VK_EXT_debug_utils is not available for validation messages");
        detail::vk_check(create(instance_, &mi, nullptr, &messenger_), "creating the validation messenger");
    }
}

namespace {
// FIELDFLOW_KERNEL_PATH: "portable" forces the portable kernels, "coopmat" requires the tensor-core
// path (an error where the device lacks it), "auto" or unset takes the best the device offers.
bool want_coopmat(const DeviceInfo& info, bool force_portable) {
    const char* value = std::getenv("FIELDFLOW_KERNEL_PATH");
    const std::string env = value ? value : "";
    if (!env.empty() && env != "auto" && env != "portable" && env != "coopmat")
        throw EngineError("FIELDFLOW_KERNEL_PATH='" + env + "' must be auto, portable or coopmat");
    if (force_portable || env == "portable") return false;
    if (env == "coopmat" && !info.cooperative_matrix)
        throw EngineError("FIELDFLOW_KERNEL_PATH=coopmat, but device '" + info.name +
                          "' lacks the tensor-core path (VK_NV_cooperative_matrix with fp16 "
                          "16x16x16, shaderFloat16, vulkanMemoryModel, 32-wide subgroups)");
    return info.cooperative_matrix;
}
} // namespace

void DeviceImpl::select_and_create_device(const std::string& selector, const DeviceOptions& options) {
    std::vector<VkPhysicalDevice> pds = physical_devices(instance_);
    if (pds.empty()) throw EngineError(no_driver_message(VK_SUCCESS));
    std::vector<DeviceInfo> infos;
    for (uint32_t i = 0; i < pds.size(); ++i) infos.push_back(describe(instance_, pds[i], i));

    std::string available;
    for (const auto& d : infos)
        available += "\n  " + std::to_string(d.index) + ": " + d.name + " (" + d.type + ")" +
                     (d.missing.empty() ? "" : " lacks " + d.missing);

    int chosen = -1;
    if (selector == "auto" || selector.empty()) {
        // discrete GPU, then any GPU, then the CPU driver
        for (int rank = 0; rank < 3 && chosen < 0; ++rank)
            for (const auto& d : infos) {
                if (!d.missing.empty()) continue;
                bool gpu = d.type == "discrete" || d.type == "integrated" || d.type == "virtual";
                if ((rank == 0 && d.type == "discrete") || (rank == 1 && gpu) ||
                    (rank == 2 && !gpu)) {
                    chosen = int(d.index);
                    break;
                }
            }
        if (chosen < 0)
            throw EngineError("no usable Vulkan device: each lacks a required feature" + available);
    } else if (selector == "cpu") {
        for (const auto& d : infos)
            if (d.type == "cpu") {
                if (!d.missing.empty())
                    throw EngineError("CPU Vulkan device '" + d.name + "' lacks " + d.missing);
                chosen = int(d.index);
                break;
            }
        if (chosen < 0)
            throw EngineError("no CPU Vulkan device (lavapipe, package mesa-vulkan-drivers) found; "
                              "devices:" + available);
    } else {
        char* end = nullptr;
        unsigned long idx = std::strtoul(selector.c_str(), &end, 10);
        if (selector.empty() || *end != '\0' || !std::isdigit(static_cast<unsigned char>(selector[0])))
            throw EngineError("device selector '" + selector +
                              "' is not 'auto', 'cpu' or a device index");
        if (idx >= infos.size())
            throw EngineError("device index " + selector + " out of range; devices:" + available);
        if (!infos[idx].missing.empty())
            throw EngineError("device '" + infos[idx].name + "' lacks " + infos[idx].missing);
        chosen = int(idx);
    }

    physical_ = pds[chosen];
    info_ = infos[chosen];
    coopmat_ = want_coopmat(info_, options.force_portable);
    // The narrow shapes let the training kernels size the MLP's narrow ends (few inputs, few
    // outputs) 8 wide: mlp_coopmat_split.glsl's CM_NARROW_ENDS.
    narrow_coopmat_ = coopmat_ && has_coopmat_shape(instance_, physical_, 16, 8, 16) &&
                      has_coopmat_shape(instance_, physical_, 16, 8, 8);
    vkGetPhysicalDeviceProperties(physical_, &properties_);
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
    queue_family_ = uint32_t(compute_queue_family(physical_));

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = queue_family_;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    af.shaderBufferFloat32AtomicAdd = VK_TRUE;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &af;
    std::vector<const char*> exts = {VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME};
    // 64-bit integer atomics carry the encoding's gradients as fixed-point pairs
    // (encoding_state.glsl); DeviceOptions::fixed_point_gradients false keeps float atomics.
    VkPhysicalDeviceShaderAtomicInt64Features ai64{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
    fixed_point_gradients_ = info_.int64_atomics && options.fixed_point_gradients;
    if (fixed_point_gradients_) {
        f2.features.shaderInt64 = VK_TRUE;
        ai64.shaderBufferInt64Atomics = VK_TRUE;
        ai64.pNext = f2.pNext;
        f2.pNext = &ai64;
    }
    // Buffers past maxStorageBufferRange are reached by address (BufferAccess::address).
    VkPhysicalDeviceBufferDeviceAddressFeatures bda{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
    {
        VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        query.pNext = &bda;
        vkGetPhysicalDeviceFeatures2(physical_, &query);
        buffer_addresses_ = bda.bufferDeviceAddress == VK_TRUE;
        bda = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
        if (buffer_addresses_) {
            bda.bufferDeviceAddress = VK_TRUE;
            bda.pNext = f2.pNext;
            f2.pNext = &bda;
        }
    }
    CoopmatFeatures coopmat_features;
    if (coopmat_) {
        coopmat_features.enable_all();
        af.pNext = coopmat_features.chain(nullptr);
        exts.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    }
    // Explicit workgroup memory layouts let the tensor-core training kernels read a tile's fp16
    // columns as 16-byte words (mlp_coopmat.glsl's CM_SHARED_BLOCKS); taken where the device has
    // them with 16-bit access.
    VkPhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR wl{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_FEATURES_KHR};
    shared_blocks_ = false;
    if (coopmat_ && has_extension(physical_, VK_KHR_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_EXTENSION_NAME)) {
        VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        query.pNext = &wl;
        vkGetPhysicalDeviceFeatures2(physical_, &query);
        shared_blocks_ = wl.workgroupMemoryExplicitLayout && wl.workgroupMemoryExplicitLayout16BitAccess;
        if (shared_blocks_) {
            wl = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_FEATURES_KHR};
            wl.workgroupMemoryExplicitLayout = VK_TRUE;
            wl.workgroupMemoryExplicitLayout16BitAccess = VK_TRUE;
            wl.pNext = f2.pNext;
            f2.pNext = &wl;
            exts.push_back(VK_KHR_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_EXTENSION_NAME);
        }
    }
    // DeviceOptions::pipeline_stats: what the driver reports of each compiled kernel.
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    if (options.pipeline_stats) {
        pipeline_stats_ = has_extension(physical_, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
        if (pipeline_stats_) {
            exts.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
            pe.pipelineExecutableInfo = VK_TRUE;
            pe.pNext = f2.pNext;
            f2.pNext = &pe;
        } else {
            std::cerr << "fieldflow engine: pipeline statistics: the device has none\n";
        }
    }
    VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.pNext = &f2;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.enabledExtensionCount = uint32_t(exts.size());
    di.ppEnabledExtensionNames = exts.data();
    detail::vk_check(vkCreateDevice(physical_, &di, nullptr, &device_),
                     "creating the Vulkan device on '" + info_.name + "'");
    vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
}

uint32_t DeviceImpl::memory_type(uint32_t bits, detail::MemoryKind kind) const {
    auto find = [&](VkMemoryPropertyFlags want) -> int {
        for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want)
                return int(i);
        return -1;
    };
    int t = -1;
    switch (kind) {
    case detail::MemoryKind::device_local:
        t = find(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (t < 0) t = find(0);
        break;
    case detail::MemoryKind::upload:
        t = find(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        break;
    case detail::MemoryKind::readback:
        t = find(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        if (t < 0) t = find(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        break;
    }
    if (t < 0) throw EngineError("device '" + info_.name + "' has no suitable memory type");
    return uint32_t(t);
}

const detail::Kernel& DeviceImpl::kernel(const std::string& shader, const detail::Defines& defines,
                                         uint32_t bindings) {
    std::string key = shader + "|" + std::to_string(bindings);
    for (const auto& [k, v] : defines) key += "|" + k + "=" + v;
    {
        std::lock_guard lock(kernel_mutex_);
        if (auto it = kernels_.find(key); it != kernels_.end()) return *it->second;
    }
    // Built without the lock, so that kernels build side by side (prepare_kernels); a kernel
    // another thread finished first is kept and this one dropped.
    detail::CompileResult compiled = detail::compile_shader(shader, defines);
    for (const auto& w : compiled.warnings) std::cerr << "fieldflow engine: warning: " << w << "\n";

    auto k = std::make_unique<detail::Kernel>();
    k->name = shader;
    k->bindings = bindings;
    auto cleanup = [&] { destroy_kernel(device_, *k); };
    try {
        VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        mi.codeSize = compiled.spirv.size() * 4;
        mi.pCode = compiled.spirv.data();
        detail::vk_check(vkCreateShaderModule(device_, &mi, nullptr, &k->module),
                         "creating shader module " + shader);
        std::vector<VkDescriptorSetLayoutBinding> b(bindings);
        for (uint32_t i = 0; i < bindings; ++i)
            b[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
        VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        li.bindingCount = bindings;
        li.pBindings = b.data();
        detail::vk_check(vkCreateDescriptorSetLayout(device_, &li, nullptr, &k->set_layout),
                         "creating a descriptor set layout");
        VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(detail::PushConstants)};
        VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
        pli.setLayoutCount = 1;
        pli.pSetLayouts = &k->set_layout;
        pli.pushConstantRangeCount = 1;
        pli.pPushConstantRanges = &pr;
        detail::vk_check(vkCreatePipelineLayout(device_, &pli, nullptr, &k->layout),
                         "creating a pipeline layout");
        VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = k->module;
        ci.stage.pName = "main";
        ci.layout = k->layout;
        if (pipeline_stats_) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
        detail::vk_check(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &ci, nullptr, &k->pipeline),
                         "creating the compute pipeline " + shader);
        if (pipeline_stats_) print_pipeline_stats(k->pipeline, shader, defines);
    } catch (...) {
        cleanup();
        throw;
    }
    std::lock_guard lock(kernel_mutex_);
    if (auto it = kernels_.find(key); it != kernels_.end()) {
        destroy_kernel(device_, *k);
        return *it->second;
    }
    return *(kernels_[key] = std::move(k));
}

void DeviceImpl::prepare_kernels(const std::vector<detail::KernelRequest>& requests) {
    std::vector<std::future<void>> builds;
    for (const detail::KernelRequest& r : requests)
        builds.push_back(std::async(std::launch::async, [this, &r] { kernel(r); }));
    std::exception_ptr failure;
    for (std::future<void>& b : builds) {
        try {
            b.get();
        } catch (...) {
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
}

void DeviceImpl::print_pipeline_stats(VkPipeline pipeline, const std::string& shader,
                                      const detail::Defines& defines) const {
    auto get_props = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        vkGetDeviceProcAddr(device_, "vkGetPipelineExecutablePropertiesKHR"));
    auto get_stats = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(device_, "vkGetPipelineExecutableStatisticsKHR"));
    if (!get_props || !get_stats) return;
    std::string line = "fieldflow engine: pipeline " + shader;
    // The defines that tell kernel shapes apart: the tile, the width and every CM_* switch the host
    // sets. Chosen by prefix rather than by a list of names so a new or removed switch needs no edit.
    for (const auto& [k, v] : defines)
        if (k == "TILE" || k == "HIDDEN" || k == "COOPMAT" || k.starts_with("CM_")) line += " " + k + "=" + v;
    VkPipelineInfoKHR pi{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    pi.pipeline = pipeline;
    uint32_t executables = 0;
    get_props(device_, &pi, &executables, nullptr);
    for (uint32_t e = 0; e < executables; ++e) {
        VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        ei.pipeline = pipeline;
        ei.executableIndex = e;
        uint32_t n = 0;
        get_stats(device_, &ei, &n, nullptr);
        std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
        get_stats(device_, &ei, &n, stats.data());
        for (const VkPipelineExecutableStatisticKHR& st : stats) {
            line += std::string(" | ") + st.name + " = ";
            switch (st.format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: line += st.value.b32 ? "true" : "false"; break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: line += std::to_string(st.value.i64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: line += std::to_string(st.value.u64); break;
            default: line += std::to_string(st.value.f64); break;
            }
        }
    }
    std::cerr << line << "\n";
}

void DeviceImpl::submit(VkCommandBuffer cb, VkFence fence) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    std::lock_guard lock(queue_mutex_);
    detail::vk_check(vkQueueSubmit(queue_, 1, &si, fence), "submitting work to the device");
}

void DeviceImpl::submit_and_wait(VkCommandBuffer cb, VkFence fence) {
    submit(cb, fence);
    detail::vk_check(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX),
                     "waiting for the device");
}

void DeviceImpl::add_message(std::string message) {
    std::cerr << "fieldflow engine: " << message << "\n";
    std::lock_guard lock(message_mutex_);
    messages_.push_back(std::move(message));
}

std::vector<std::string> DeviceImpl::messages() const {
    std::lock_guard lock(message_mutex_);
    return messages_;
}

// ---- public API -----------------------------------------------------------------------------

std::vector<DeviceInfo> list_devices() {
    VkResult r;
    VkInstance instance = plain_instance(r);
    if (!instance) return {};
    std::vector<DeviceInfo> out;
    std::vector<VkPhysicalDevice> pds = physical_devices(instance);
    for (uint32_t i = 0; i < pds.size(); ++i) out.push_back(describe(instance, pds[i], i));
    vkDestroyInstance(instance, nullptr);
    return out;
}

Device Device::open(const std::string& selector, DeviceOptions options) {
    Device d;
    d.impl_ = std::make_shared<DeviceImpl>(selector, options);
    return d;
}

const DeviceInfo& Device::info() const { return impl_->info(); }
std::string Device::kernel_path() const { return impl_->kernel_path(); }
std::vector<std::string> Device::validation_messages() const { return impl_->messages(); }
uint64_t Device::allocated_bytes() const { return impl_->allocated_bytes(); }
bool Device::fixed_point_gradients() const { return impl_->fixed_point_gradients(); }

} // namespace ff::engine
