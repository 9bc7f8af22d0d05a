// The one-line message of a diagnosis, written into its fixed buffer: no
// allocation, cut (never overrun) when a detail is long.
#ifndef ONNXVIEW_SRC_DIAGNOSE_LINE_HPP
#define ONNXVIEW_SRC_DIAGNOSE_LINE_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxview/decimal.hpp"
#include "onnxview/diagnose.hpp"

namespace onnxview {
namespace diagnosis_detail {

class line_builder {
public:
    explicit line_builder(diagnosis& d) noexcept : out_(d.line) { out_[0] = '\0'; }

    line_builder& text(std::string_view s) noexcept {
        for (char c : s) put(c);
        return *this;
    }
    line_builder& number(std::uint64_t v) noexcept {
        char digits[max_decimal_digits];
        return text(std::string_view(digits, write_decimal(digits, v)));
    }
    // `s` in single quotes for a terminal: printable ASCII as is, any other
    // byte as '?' (the line is for reading, not for copying bytes back), and
    // "..." after `max` bytes.
    line_builder& quoted(std::string_view s, std::size_t max = 80) noexcept {
        put('\'');
        for (std::size_t i = 0; i < s.size() && i < max; ++i) {
            const unsigned char c = static_cast<unsigned char>(s[i]);
            put(c >= 0x20 && c < 0x7F ? static_cast<char>(c) : '?');
        }
        if (s.size() > max) text("...");
        put('\'');
        return *this;
    }

private:
    void put(char c) noexcept {
        if (used_ + 1 >= capacity) return;
        out_[used_++] = c;
        out_[used_] = '\0';
    }

    static constexpr std::size_t capacity = sizeof(diagnosis::line);
    char* out_;
    std::size_t used_ = 0;
};

// Recognizes the formats told apart by their first bytes (magic numbers,
// text, archives): fills d (kind, detail, number, line) and returns true,
// or returns false leaving d as it was. src/diagnose/signatures.cpp.
bool recognize_signature(const unsigned char* p, std::size_t n, diagnosis& d) noexcept;

// Recognizes ONNX messages other than a model (TensorProto, GraphProto,
// SequenceProto, OptionalProto, MapProto). src/diagnose/onnx_messages.cpp.
bool recognize_onnx_message(const char* p, std::size_t n, const options& opts, diagnosis& d) noexcept;

// Recognizes protobuf messages of other frameworks (TensorFlow GraphDef and
// SavedModel, Core ML). src/diagnose/foreign_protobuf.cpp.
bool recognize_foreign_protobuf(const char* p, std::size_t n, diagnosis& d) noexcept;

}  // namespace diagnosis_detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_DIAGNOSE_LINE_HPP
