// Internal: the writer's output stream. Measuring (no sink) it only counts
// bytes; writing, it batches small pieces (tags, lengths, copied metadata)
// into one buffer and hands payloads to the sink whole. After the first
// error it writes nothing more and keeps that error.
#ifndef ONNXVIEW_SRC_WRITE_EMITTER_HPP
#define ONNXVIEW_SRC_WRITE_EMITTER_HPP

#include <cstdint>
#include <cstring>

#include "onnxview/sink.hpp"
#include "onnxview/wire_encode.hpp"

namespace onnxview {
namespace detail {

class emitter {
public:
    static constexpr std::size_t buffer_size = 32 * 1024;

    explicit emitter(const write_sink* sink) noexcept : sink_(sink) {}
    emitter(const emitter&) = delete;
    emitter& operator=(const emitter&) = delete;

    bool writing() const noexcept { return sink_ != nullptr; }
    std::uint64_t position() const noexcept { return position_; }
    error err() const noexcept { return err_; }

    void bytes(const char* p, std::uint64_t n) noexcept {
        position_ += n;
        if (!writing() || !err_.ok()) return;
        if (n >= buffer_size) {
            flush();
            send(p, n);
            return;
        }
        if (n > buffer_size - used_) flush();
        std::memcpy(buffer_ + used_, p, static_cast<std::size_t>(n));
        used_ += static_cast<std::size_t>(n);
    }
    void varint(std::uint64_t v, unsigned width) noexcept {
        char b[wire::max_varint_bytes];
        bytes(b, wire::encode_varint(b, v, width));
    }
    void varint(std::uint64_t v) noexcept { varint(v, wire::varint_size(v)); }
    void tag(std::uint32_t number, wire::wire_type type) noexcept { varint(wire::make_tag(number, type)); }
    void zeros(std::uint64_t n) noexcept {
        static const char none[256] = {};
        while (n != 0) {
            const std::uint64_t k = n < sizeof none ? n : sizeof none;
            bytes(none, k);
            n -= k;
        }
    }
    // Appends n bytes of the file open as fd from `offset` through the
    // sink's copy; false when it has none or cannot (nothing was emitted).
    bool copy(int fd, std::uint64_t offset, std::uint64_t n) noexcept {
        if (!writing() || !err_.ok() || sink_->copy == nullptr) return false;
        flush();
        if (!err_.ok()) return false;
        const error e = sink_->copy(sink_->user, fd, offset, n);
        if (e.code == errc::not_found) return false;
        err_ = e;
        position_ += n;
        return true;
    }
    // Counts n bytes that a writing pass would emit (measuring only).
    void skip(std::uint64_t n) noexcept { position_ += n; }
    // The first error from now on, e.g. of producing a payload.
    void fail(error e) noexcept {
        if (err_.ok()) err_ = e;
    }
    error finish() noexcept {
        if (writing() && err_.ok()) flush();
        return err_;
    }

private:
    void flush() noexcept {
        if (used_ != 0) send(buffer_, used_);
        used_ = 0;
    }
    void send(const char* p, std::uint64_t n) noexcept {
        if (!err_.ok()) return;
        // std::size_t is 32 bits on 32-bit hosts: hand over 1 GiB at a time.
        while (n != 0) {
            const std::uint64_t k = n < (std::uint64_t(1) << 30) ? n : (std::uint64_t(1) << 30);
            err_ = sink_->write(sink_->user, p, static_cast<std::size_t>(k));
            if (!err_.ok()) return;
            p += k;
            n -= k;
        }
    }

    const write_sink* sink_;
    std::uint64_t position_ = 0;
    error err_;
    std::size_t used_ = 0;
    char buffer_[buffer_size];
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_EMITTER_HPP
