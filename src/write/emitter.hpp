// Internal: the writer's output stream. Measuring (no sink) it only counts
// bytes; writing, it batches small pieces (tags, lengths, copied metadata)
// into one buffer and hands payloads to the sink whole. After the first
// error it writes nothing more and keeps that error.
//
// Bytes of the input model (its `source`) are copied file to file when they
// are large and the sink can, and the input's pages behind the last ones
// written or counted are given back (source::written) every few MiB:
// whatever the walk copies, and from where, the resident set stays bounded.
#ifndef ONNXVIEW_SRC_WRITE_EMITTER_HPP
#define ONNXVIEW_SRC_WRITE_EMITTER_HPP

#include <cstdint>
#include <cstring>
#include <string_view>

#include "onnxview/file.hpp"
#include "onnxview/model.hpp"
#include "onnxview/sink.hpp"
#include "onnxview/wire_encode.hpp"

namespace onnxview {
namespace detail {

// The input model's bytes, and what may be done with them.
struct source {
    std::string_view bytes;
    const int* fd = nullptr;  // the file `bytes` holds, open for reading (null: none)
    void (*written)(void* user, const char* data, std::size_t size) = nullptr;
    void* user = nullptr;
};

class emitter {
public:
    static constexpr std::size_t buffer_size = 32 * 1024;
    // Pages of the source are given back in runs of at least this size.
    static constexpr std::uint64_t release_run = 4u << 20;

    explicit emitter(const write_sink* sink, const source* from = nullptr) noexcept : sink_(sink), source_(from) {}
    emitter(const emitter&) = delete;
    emitter& operator=(const emitter&) = delete;

    bool writing() const noexcept { return sink_ != nullptr; }
    std::uint64_t position() const noexcept { return position_; }
    error err() const noexcept { return err_; }

    void bytes(const char* p, std::uint64_t n) noexcept {
        if (n == 0) return;  // p may be null (an empty string_view)
        if (source_ == nullptr || !inside_source(p, n)) {
            plain(p, n);
            return;
        }
        const std::uint64_t offset = static_cast<std::uint64_t>(p - source_->bytes.data());
        if (n < buffer_size || source_->fd == nullptr || !copy(*source_->fd, offset, n)) plain(p, n);
        if (offset + n > consumed_) consumed_ = offset + n;
        release(false);
    }
    void varint(std::uint64_t v, unsigned width) noexcept {
        char b[wire::max_varint_bytes];
        plain(b, wire::encode_varint(b, v, width));
    }
    void varint(std::uint64_t v) noexcept { varint(v, wire::varint_size(v)); }
    void tag(std::uint32_t number, wire::wire_type type) noexcept { varint(wire::make_tag(number, type)); }
    void zeros(std::uint64_t n) noexcept {
        static const char none[256] = {};
        while (n != 0) {
            const std::uint64_t k = n < sizeof none ? n : sizeof none;
            plain(none, k);
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
        release(true);
        return err_;
    }

private:
    void plain(const char* p, std::uint64_t n) noexcept {
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
    void flush() noexcept {
        if (used_ != 0) send(buffer_, used_);
        used_ = 0;
    }
    // Calls piece(p, size) over [p, p + n) in pieces of at most 1 GiB
    // (std::size_t is 32 bits on 32-bit hosts) until one returns false.
    template <class Piece>
    static void in_pieces(const char* p, std::uint64_t n, Piece piece) noexcept {
        while (n != 0) {
            const std::uint64_t k = n < (std::uint64_t(1) << 30) ? n : (std::uint64_t(1) << 30);
            if (!piece(p, static_cast<std::size_t>(k))) return;
            p += k;
            n -= k;
        }
    }
    void send(const char* p, std::uint64_t n) noexcept {
        if (!err_.ok()) return;
        in_pieces(p, n, [this](const char* q, std::size_t k) {
            err_ = sink_->write(sink_->user, q, k);
            return err_.ok();
        });
    }
    bool inside_source(const char* p, std::uint64_t n) const noexcept {
        const std::string_view b = source_->bytes;
        return p >= b.data() && static_cast<std::uint64_t>(p - b.data()) <= b.size() &&
               n <= b.size() - static_cast<std::uint64_t>(p - b.data());
    }
    // Gives back the source's pages up to the end of the last range written
    // or counted (all of them when `all`), once there is a run of them.
    void release(bool all) noexcept {
        if (source_ == nullptr || source_->written == nullptr || consumed_ <= released_) return;
        if (!all && consumed_ - released_ < release_run) return;
        // Reading near the last mark mapped some pages before it again.
        const std::uint64_t start = released_ > mapping_fault_span ? released_ - mapping_fault_span : 0;
        const source& s = *source_;
        in_pieces(s.bytes.data() + start, consumed_ - start, [&s](const char* q, std::size_t k) {
            s.written(s.user, q, k);
            return true;
        });
        released_ = consumed_;
    }

    const write_sink* sink_;
    const source* source_;
    std::uint64_t consumed_ = 0;  // the source's bytes up to the end of the last range written or counted
    std::uint64_t released_ = 0;  // ... and of those, given back
    std::uint64_t position_ = 0;
    error err_;
    std::size_t used_ = 0;
    char buffer_[buffer_size];
};

// Field `number`, length-delimited, holding `s`.
inline void emit_string(emitter& out, std::uint32_t number, std::string_view s) noexcept {
    out.tag(number, wire::wire_type::length_delimited);
    out.varint(s.size());
    out.bytes(s.data(), s.size());
}

// Field `number` holding a StringStringEntryProto {key, value + value_tail}
// (metadata_props, external_data); the value may come in two pieces.
inline void emit_string_entry(emitter& out, std::uint32_t number, std::string_view key, std::string_view value,
                              std::string_view value_tail = {}) noexcept {
    constexpr std::uint32_t key_field = string_entry_view::field::key;
    constexpr std::uint32_t value_field = string_entry_view::field::value;
    const std::uint64_t value_size = value.size() + value_tail.size();
    out.tag(number, wire::wire_type::length_delimited);
    out.varint(wire::length_delimited_size(key_field, key.size()) +
               wire::length_delimited_size(value_field, value_size));
    emit_string(out, key_field, key);
    out.tag(value_field, wire::wire_type::length_delimited);
    out.varint(value_size);
    out.bytes(value.data(), value.size());
    out.bytes(value_tail.data(), value_tail.size());
}

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_WRITE_EMITTER_HPP
