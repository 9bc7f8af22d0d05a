// memory_sink (onnxview/sink.hpp); fd_sink is the io layer's.
#include <cstring>

#include "onnxview/sink.hpp"

namespace onnxview {

namespace {
error write_memory(void* user, const char* data, std::size_t size) noexcept {
    auto* s = static_cast<memory_sink_state*>(user);
    if (size > s->capacity - s->used) return errc::buffer_too_small;
    if (size != 0) std::memcpy(s->buffer + s->used, data, size);
    s->used += size;
    return error();
}
}  // namespace

write_sink memory_sink(memory_sink_state& state) noexcept {
    write_sink s;
    s.user = &state;
    s.write = write_memory;
    return s;
}

}  // namespace onnxview
