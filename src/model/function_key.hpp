// Internal: how a node names the model-local function it calls, and the
// domain an opset import or a node names, as the checker and the writer's
// extraction, prefixes and merges resolve them (onnx 1.12: a function is found by domain,
// name and overload; "ai.onnx" is the default domain "").
#ifndef ONNXVIEW_SRC_MODEL_FUNCTION_KEY_HPP
#define ONNXVIEW_SRC_MODEL_FUNCTION_KEY_HPP

#include <cstddef>
#include <functional>
#include <string_view>

namespace onnxview {
namespace detail {

struct function_key {
    std::string_view domain, name, overload;
    bool operator==(const function_key& o) const noexcept {
        return domain == o.domain && name == o.name && overload == o.overload;
    }
    bool operator<(const function_key& o) const noexcept {
        return domain != o.domain ? domain < o.domain : name != o.name ? name < o.name : overload < o.overload;
    }
};
struct function_key_hash {
    std::size_t operator()(const function_key& k) const noexcept {
        const std::hash<std::string_view> h;
        return h(k.domain) * 31u + h(k.name) * 7u + h(k.overload);
    }
};

// The domain key of an opset_import or a node: "ai.onnx" is "".
inline std::string_view domain_key(std::string_view domain) noexcept {
    return domain == "ai.onnx" ? std::string_view() : domain;
}

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_MODEL_FUNCTION_KEY_HPP
