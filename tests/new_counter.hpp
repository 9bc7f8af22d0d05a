// Counts calls of the global operator new made while counting is on.
// new_counter.cpp replaces every form of operator new and delete (malloc and
// free underneath) for the whole test program that links it; a program that
// does is its own executable, so the other tests keep the standard ones.
#ifndef ONNXVIEW_TESTS_NEW_COUNTER_HPP
#define ONNXVIEW_TESTS_NEW_COUNTER_HPP

#include <cstddef>

namespace onnxview_test {

void count_new(bool on) noexcept;
// Totals since the program started, of the calls made while counting.
unsigned long new_calls() noexcept;
unsigned long long new_bytes() noexcept;

// Counting is on for the lifetime of a counting_new, off for a pause.
class counting_new {
public:
    counting_new() noexcept { count_new(true); }
    ~counting_new() { count_new(false); }
    counting_new(const counting_new&) = delete;
    counting_new& operator=(const counting_new&) = delete;
};
class pause_counting_new {
public:
    pause_counting_new() noexcept { count_new(false); }
    ~pause_counting_new() { count_new(true); }
    pause_counting_new(const pause_counting_new&) = delete;
    pause_counting_new& operator=(const pause_counting_new&) = delete;
};

}  // namespace onnxview_test

#endif  // ONNXVIEW_TESTS_NEW_COUNTER_HPP
