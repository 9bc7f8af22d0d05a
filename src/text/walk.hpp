// Internal: what the text and JSON printers share besides the schema walk
// (src/model/schema_walk.hpp): a buffered writer and number formatting.
#ifndef ONNXVIEW_SRC_TEXT_WALK_HPP
#define ONNXVIEW_SRC_TEXT_WALK_HPP

#include <cstddef>
#include <cstdint>

#include "onnxview/decimal.hpp"
#include "onnxview/schema.hpp"
#include "../model/schema_walk.hpp"
#include "onnxview/text_format.hpp"
#include "onnxview/wire.hpp"

namespace onnxview {
namespace text_detail {

using namespace schema_walk;  // the printers walk messages as verify() does

// What both printers do before writing: the sink is usable and verify()'s
// check passes (nothing is written for a message it refuses); then `s` is the
// root message.
inline error start_printing(const void* data, std::size_t size, const schema::message_desc& root,
                            output_sink sink, const options& opts, wire::message& s) noexcept {
    if (!sink.write) return error(errc::invalid_argument, 0);
    const char* p = static_cast<const char*>(data);
    if (error e = validate_tree(p, size, root, opts.max_message_depth, opts.release)) return e;
    s = wire::message::root(p, size, opts.max_message_depth);
    return error();
}

// A small buffered writer to an output_sink.
class out_buf {
public:
    explicit out_buf(output_sink s) noexcept : sink_(s) {}
    ~out_buf() { flush(); }
    void put(const char* p, std::size_t n) noexcept {
        while (n) {
            if (n_ == sizeof buf_) flush();
            std::size_t k = sizeof buf_ - n_;
            if (k > n) k = n;
            for (std::size_t i = 0; i < k; ++i) buf_[n_ + i] = p[i];
            n_ += k;
            p += k;
            n -= k;
        }
    }
    void put(char c) noexcept {
        if (n_ == sizeof buf_) flush();
        buf_[n_++] = c;
    }
    void put(const char* s) noexcept {
        std::size_t n = 0;
        while (s[n]) ++n;
        put(s, n);
    }
    void spaces(std::size_t n) noexcept {
        while (n--) put(' ');
    }
    void flush() noexcept {
        if (n_) sink_.write(sink_.user, buf_, n_);
        n_ = 0;
    }

private:
    output_sink sink_;
    char buf_[4096];
    std::size_t n_ = 0;
};

// Number formatting (C locale; unsigned numbers: write_decimal).
std::size_t fmt_i64(char* buf, std::int64_t v) noexcept;
// protobuf's SimpleFtoa / SimpleDtoa ("inf", "-inf", "nan" for specials).
std::size_t fmt_float(char* buf, float v) noexcept;
std::size_t fmt_double(char* buf, double v) noexcept;

}  // namespace text_detail
}  // namespace onnxview

#endif
