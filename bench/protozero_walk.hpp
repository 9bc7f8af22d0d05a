// What both protozero competitors share (walk_protozero.cpp,
// walk_protozero_checked.cpp): the block sum of packed fixed-width chunks, and
// the entry points (a walker's pass over the model, with protozero's
// exceptions caught here).
#ifndef ONNXVIEW_BENCH_PROTOZERO_WALK_HPP
#define ONNXVIEW_BENCH_PROTOZERO_WALK_HPP

#include <sys/mman.h>

#include <protozero/pbf_reader.hpp>

#include "common.hpp"

namespace bench {

// A packed chunk of fixed-width little-endian values (T: float or double),
// summed as one block as the other competitors do: get_packed_float() and
// get_packed_double() only offer an iterator that loads one element per
// step, so a loader that wants the block takes the chunk's bytes with
// get_view() and checks its length as protozero's packed_fixed() does.
template <class T>
void protozero_fixed_block(protozero::pbf_reader& p, std::int32_t dtype, tensor_sum& s) {
    const protozero::data_view bytes = p.get_view();
    if (bytes.size() % sizeof(T) != 0) throw protozero::invalid_length_exception{};
    s.add_raw(dtype, bytes.data(), bytes.size());
}

// Walker: constructible from {walk_result&, bool payloads}, with model(pbf_reader).
template <class Walker>
bool protozero_walk(const char* data, std::size_t size, bool payloads, walk_result& r, std::string& err) {
    try {
        Walker{r, payloads}.model(protozero::pbf_reader(data, size));
        at_peak();
        return true;
    } catch (const protozero::exception& e) {
        err = std::string("protozero: ") + e.what();
        return false;
    }
}

template <class Walker>
bool protozero_open_walk(const char* path, bool payloads, walk_result& r, std::string& err) {
    file_map f;
    if (!f.open(path, payloads ? MADV_SEQUENTIAL : MADV_RANDOM, err)) return false;
    return protozero_walk<Walker>(f.data(), f.size(), payloads, r, err);
}

}  // namespace bench

#endif  // ONNXVIEW_BENCH_PROTOZERO_WALK_HPP
