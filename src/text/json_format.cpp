#include "onnxview/json_format.hpp"
namespace onnxview {
error print_json(const void*, std::size_t, const schema::message_desc&, output_sink, const print_options&) noexcept { return error(errc::invalid_argument, 0); }
}
