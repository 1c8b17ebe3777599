// The shapes and dtypes record_shapes=True stores with each op, decoded from the raw JSON the
// trace keeps ("Input Dims": [[128, 784], [512, 784], [512]], "Input type": ["float", ...]).
// The importer keeps them as recorded (most ops are never asked); analyses that need them
// decode here, so no analysis parses text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy {

// One entry per input: its dims, empty for a scalar, a non-tensor or a list of tensors
// (TensorList inputs nest one level deeper and carry no single shape). nullopt when |json| is
// not a list of lists of integers.
std::optional<std::vector<std::vector<int64_t>>> ParseInputDims(std::string_view json);

// One string per input ("float", "c10::BFloat16", "Scalar", ""); nullopt when |json| is not a
// list of strings.
std::optional<std::vector<std::string>> ParseInputTypes(std::string_view json);

// "Concrete Inputs" (PyTorch 2.x, record_shapes=True): one string per input, "" for a tensor,
// else the scalar's text ("1", "[1, 1]", "False"). nullopt when |json| is not a list of strings.
std::optional<std::vector<std::string>> ParseConcreteInputs(std::string_view json);

// One concrete input as integers: "2" -> {2}, "[1, 2]" -> {1, 2}, "True"/"False" -> {1}/{0}
// (also inside a list: an output_mask). nullopt for anything else ("", "'same'", "1.5").
std::optional<std::vector<int64_t>> ParseConcreteInts(std::string_view text);

}  // namespace gpuwhy
