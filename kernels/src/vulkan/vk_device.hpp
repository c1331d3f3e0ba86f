// Vulkan plumbing shared by the engine: the device (instance, queue, validation messages, memory
// accounting), buffers, compute kernels built from embedded GLSL and their descriptor sets.
#pragma once

#include "fieldflow/engine/engine.hpp"
#include "device_features.hpp"
#include "shader_compiler.hpp"

#include <vulkan/vulkan.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ff::engine {

namespace detail {

const char* vk_result_name(VkResult r);
// Throws EngineError "<what>: <VkResult name>" unless r is VK_SUCCESS.
void vk_check(VkResult r, const std::string& what);

enum class MemoryKind {
    device_local, // every buffer a step touches
    upload,       // host-visible staging for uploads
    readback,     // host-visible (cached where possible) staging for downloads
};

// How kernels reach a buffer: through a descriptor (the default: at most maxStorageBufferRange
// bytes, or the device's cap) or through its device address (a buffer past that range, such as a
// large hash table's training state on a 128 MB-range CPU driver; the kernel is then built to read
// the address from the push constants, which the DescriptorSet binding it fills in).
enum class BufferAccess { descriptor, address };

class Buffer {
public:
    Buffer() = default;
    Buffer(DeviceImpl& device, VkDeviceSize size, MemoryKind kind, const std::string& name,
           BufferAccess access = BufferAccess::descriptor);
    ~Buffer();
    Buffer(Buffer&& o) noexcept;
    Buffer& operator=(Buffer&& o) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return buffer_; }
    VkDeviceSize size() const { return size_; }
    void* mapped() const { return mapped_; } // host-visible kinds only
    VkDeviceSize allocated() const { return allocated_; } // device memory held
    // The device address of a BufferAccess::address buffer; 0 for the others.
    VkDeviceAddress address() const { return address_; }

private:
    void release();
    DeviceImpl* device_ = nullptr;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    VkDeviceSize allocated_ = 0;
    VkDeviceAddress address_ = 0;
    void* mapped_ = nullptr;
};

// Push constants shared by every engine kernel (mirrors `Push` in shaders/common.glsl).
struct PushConstants {
    uint32_t grid_w = 0, grid_h = 0, width = 0, height = 0;
    uint32_t batch = 0, step = 0, seed_lo = 0, seed_hi = 0;
    float lr = 0, beta1 = 0, beta2 = 0, epsilon = 0;
    float bias_correction1 = 1, bias_correction2 = 1;
    uint32_t count = 0, slot = 0;
    float lr_grid = 0;
    uint32_t cells = 0;
    uint32_t steps_total = 0, catch_up_limit = 0;
    float lr_grid_base = 0, lr_warmup = 0, lr_decay_start = 0, lr_final_scale = 1;
    uint32_t encoding_groups = 0, first_row = 0;
    float log2_beta1 = 0, log2_beta2 = 0, log2_lr_final_scale = 0;
    uint32_t catch_up_last = 0;
    // The device address of the dispatch's BufferAccess::address buffer (low, high word), which
    // DescriptorSet::dispatch fills in.
    uint32_t buffer_address_lo = 0, buffer_address_hi = 0;
};
// Vulkan guarantees 128 bytes of push constants on every device: this is all of them.
static_assert(sizeof(PushConstants) == 128);

// What a kernel is built from: its shader, the defines and its storage-buffer bindings.
struct KernelRequest {
    std::string shader;
    Defines defines;
    uint32_t bindings = 0;
};

// A compute pipeline over `bindings` storage buffers (bindings 0..n-1) + the push constants.
struct Kernel {
    std::string name;
    uint32_t bindings = 0;
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
};

// One descriptor set binding concrete buffers to a kernel's bindings.
class DescriptorSet {
public:
    DescriptorSet() = default;
    DescriptorSet(DeviceImpl& device, const Kernel& kernel, const std::vector<const Buffer*>& buffers);
    ~DescriptorSet();
    DescriptorSet(DescriptorSet&& o) noexcept;
    DescriptorSet& operator=(DescriptorSet&& o) noexcept;
    DescriptorSet(const DescriptorSet&) = delete;
    DescriptorSet& operator=(const DescriptorSet&) = delete;

    // Binds pipeline + set, pushes constants and dispatches groups_x workgroups.
    void dispatch(VkCommandBuffer cb, const PushConstants& pc, uint32_t groups_x) const;

private:
    void release();
    DeviceImpl* device_ = nullptr;
    const Kernel* kernel_ = nullptr;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
    VkDescriptorSet set_ = VK_NULL_HANDLE;
    VkDeviceAddress address_ = 0; // of the one BufferAccess::address buffer bound, if any
};

// Makes all compute-shader writes visible to later compute reads and transfers.
void compute_barrier(VkCommandBuffer cb);

// A command pool + command buffer + fence for recording and running work on the device queue.
class CommandRunner {
public:
    explicit CommandRunner(DeviceImpl& device);
    ~CommandRunner();
    CommandRunner(const CommandRunner&) = delete;
    CommandRunner& operator=(const CommandRunner&) = delete;

    // Records with `record` into a fresh one-time command buffer, submits and waits.
    void run(const std::function<void(VkCommandBuffer)>& record);

private:
    DeviceImpl& device_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cb_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
};

// Command buffers recorded while the device runs the ones submitted before them: the host's
// recording (thousands of dispatches for a long run of training steps) overlaps the device's work
// instead of adding to it. Each of kSlots slots holds one command buffer and its fence.
class PipelinedRunner {
public:
    static constexpr uint32_t kSlots = 2;
    explicit PipelinedRunner(DeviceImpl& device);
    ~PipelinedRunner(); // waits for what is still in flight
    PipelinedRunner(const PipelinedRunner&) = delete;
    PipelinedRunner& operator=(const PipelinedRunner&) = delete;

    // Waits for the slot's previous submit, records into its command buffer and submits it,
    // without waiting. Work in submission order is ordered by the barriers it records.
    void submit(uint32_t slot, const std::function<void(VkCommandBuffer)>& record);
    // Waits until the slot's last submit has finished; at once when nothing is in flight there.
    void wait(uint32_t slot);
    // Waits for every slot, ignoring device errors (destructors, unwinding).
    void drain() noexcept;

private:
    DeviceImpl& device_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cb_[kSlots] = {};
    VkFence fence_[kSlots] = {};
    bool in_flight_[kSlots] = {};
};

} // namespace detail

class DeviceImpl {
public:
    DeviceImpl(const std::string& selector, const DeviceOptions& options);
    ~DeviceImpl();
    DeviceImpl(const DeviceImpl&) = delete;
    DeviceImpl& operator=(const DeviceImpl&) = delete;

    VkDevice device() const { return device_; }
    VkPhysicalDevice physical() const { return physical_; }
    uint32_t queue_family() const { return queue_family_; }
    const DeviceInfo& info() const { return info_; }
    const VkPhysicalDeviceProperties& properties() const { return properties_; }
    // True when the MLP kernels run on tensor cores (GL_NV_cooperative_matrix): the device offers
    // it and neither DeviceOptions::force_portable nor FIELDFLOW_KERNEL_PATH=portable said no.
    bool coopmat() const { return coopmat_; }
    // The tensor-core path also has the fp16 -> fp32 shapes 16x8x16 and 16x8x8.
    bool narrow_coopmat() const { return narrow_coopmat_; }
    // The tensor-core kernels may lay out shared memory explicitly (VK_KHR_workgroup_memory_explicit_layout).
    bool shared_blocks() const { return shared_blocks_; }
    // Whether the training step adds the encoding's gradients as fixed-point integers
    // (encoding_state.glsl's ENC_GRAD_FIXED): the device has 64-bit integer atomics.
    bool fixed_point_gradients() const { return fixed_point_gradients_; }
    // Whether kernels may reach buffers by device address (bufferDeviceAddress, core in Vulkan
    // 1.2 but optional): BufferAccess::address needs it.
    bool buffer_addresses() const { return buffer_addresses_; }
    // Whether the driver caps the loop iterations one shader invocation runs: llvmpipe (lavapipe)
    // counts every loop back-edge of an invocation against 65,535 and, past that, exits every
    // loop, so a 128-wide MLP of 5 hidden layers rendered zeros (TrainTiling::loops_capped).
    bool loop_iterations_capped() const { return info_.driver.rfind("llvmpipe", 0) == 0; }
    std::string kernel_path() const { return coopmat_ ? "coopmat" : "portable"; }

    // The most bytes one storage buffer may hold: maxStorageBufferRange, or less where
    // DeviceOptions::max_buffer_bytes / FIELDFLOW_MAX_BUFFER_BYTES caps it.
    uint64_t max_buffer_bytes() const { return max_buffer_bytes_; }
    // What the kernel choices read of this device (device_features.hpp).
    const detail::DeviceFeatures& features() const { return features_; }
    // Memory type index for a buffer of `kind`; throws if none fits.
    uint32_t memory_type(uint32_t type_bits, detail::MemoryKind kind) const;
    void add_allocated(int64_t bytes) { allocated_ += bytes; }
    uint64_t allocated_bytes() const { return allocated_.load(); }

    // Builds (once per name + defines) the pipeline of an embedded shader.
    const detail::Kernel& kernel(const std::string& shader, const detail::Defines& defines,
                                 uint32_t bindings);
    // Builds the kernels of `requests` side by side (SPIR-V compilation and the driver's pipeline
    // compilation take most of a first run's setup), so that kernel() then finds them; rethrows
    // the first failure once all have ended.
    void prepare_kernels(const std::vector<detail::KernelRequest>& requests);
    const detail::Kernel& kernel(const detail::KernelRequest& r) { return kernel(r.shader, r.defines, r.bindings); }

    // Queue access is externally synchronised: every submit goes through here.
    void submit_and_wait(VkCommandBuffer cb, VkFence fence);
    void submit(VkCommandBuffer cb, VkFence fence); // returns at once; the fence signals the end

    void add_message(std::string message);
    std::vector<std::string> messages() const;

private:
    void print_pipeline_stats(VkPipeline pipeline, const std::string& shader, const detail::Defines& defines) const;
    void create_instance(bool validation);
    void select_and_create_device(const std::string& selector, const DeviceOptions& options);

    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queue_family_ = 0;
    bool coopmat_ = false;
    bool narrow_coopmat_ = false;
    bool shared_blocks_ = false;
    bool fixed_point_gradients_ = false;
    bool buffer_addresses_ = false;
    bool pipeline_stats_ = false; // DeviceOptions::pipeline_stats: print each kernel's driver statistics
    DeviceInfo info_;
    VkPhysicalDeviceProperties properties_{};
    VkPhysicalDeviceMemoryProperties memory_{};
    std::atomic<int64_t> allocated_{0};
    uint64_t max_buffer_bytes_ = 0;
    detail::DeviceFeatures features_;

    std::mutex queue_mutex_;
    std::mutex kernel_mutex_;
    std::map<std::string, std::unique_ptr<detail::Kernel>> kernels_;
    mutable std::mutex message_mutex_;
    std::vector<std::string> messages_;
};

} // namespace ff::engine
