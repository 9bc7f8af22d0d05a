// The Catch2 runner; each *_test.cpp holds the tests of one part.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
