// A small validator for the subset of JSON Schema (draft 2020-12) that docs/report-schema.json
// uses: type, enum, required, properties, additionalProperties (bool or schema), items and local
// $ref. Any other keyword is an error, so the schema cannot silently outgrow what is checked.
// Header-only over simdjson's DOM (no new dependency): report_schema_test checks every report
// the tests render with it, and the end-to-end fuzz target (src/pipeline/fuzz/) every report a
// mutated input renders.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

namespace gpuwhy::report_schema {

namespace dom = simdjson::dom;

class SchemaValidator {
 public:
  explicit SchemaValidator(dom::element root) : root_(root) {}

  std::vector<std::string> Validate(dom::element value) {
    errors_.clear();
    Check(root_, value, "$");
    return errors_;
  }

 private:
  void Error(const std::string& path, const std::string& what) {
    if (errors_.size() < 20) errors_.push_back(path + ": " + what);
  }

  static bool HasType(dom::element value, std::string_view type) {
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "boolean") return value.is_bool();
    if (type == "null") return value.is_null();
    if (type == "integer") return value.is_int64() || value.is_uint64();
    if (type == "number") return value.is_number();
    return false;
  }

  dom::element Resolve(std::string_view ref, const std::string& path) {
    constexpr std::string_view kPrefix = "#/$defs/";
    dom::element target;
    if (!ref.starts_with(kPrefix) ||
        root_["$defs"][ref.substr(kPrefix.size())].get(target) != simdjson::SUCCESS) {
      Error(path, "unresolvable $ref " + std::string(ref));
      return root_;
    }
    return target;
  }

  void Check(dom::element schema, dom::element value, const std::string& path) {
    dom::object keywords;
    if (schema.get(keywords) != simdjson::SUCCESS) {
      Error(path, "schema is not an object");
      return;
    }
    for (auto [key, sub] : keywords) {
      if (key == "$ref") {
        Check(Resolve(std::string_view(sub), path), value, path);
      } else if (key == "type") {
        CheckType(sub, value, path);
      } else if (key == "enum") {
        CheckEnum(sub, value, path);
      } else if (key == "required") {
        if (!value.is_object()) continue;
        for (dom::element name : sub.get_array()) {
          if (value[std::string_view(name)].error() != simdjson::SUCCESS) {
            Error(path, "missing required key " + std::string(std::string_view(name)));
          }
        }
      } else if (key == "properties" || key == "additionalProperties") {
        if (key == "properties") CheckProperties(keywords, value, path);
      } else if (key == "items") {
        if (!value.is_array()) continue;
        size_t i = 0;
        for (dom::element item : value.get_array()) {
          Check(sub, item, path + "[" + std::to_string(i++) + "]");
        }
      } else if (key != "$schema" && key != "$id" && key != "$defs" && key != "title" &&
                 key != "description") {
        Error(path, "schema keyword outside the validated subset: " + std::string(key));
      }
    }
  }

  void CheckType(dom::element type, dom::element value, const std::string& path) {
    std::vector<std::string_view> allowed;
    if (type.is_string()) {
      allowed.push_back(std::string_view(type));
    } else {
      for (dom::element t : type.get_array()) allowed.push_back(std::string_view(t));
    }
    for (std::string_view t : allowed) {
      if (HasType(value, t)) return;
    }
    Error(path, "wrong type " + simdjson::minify(value).substr(0, 80));
  }

  void CheckEnum(dom::element options, dom::element value, const std::string& path) {
    std::string actual = simdjson::minify(value);
    for (dom::element option : options.get_array()) {
      if (simdjson::minify(option) == actual) return;
    }
    Error(path, "value not in enum: " + actual.substr(0, 80));
  }

  // properties and additionalProperties together: each key of |value| is checked against
  // its own schema, or the additional one, or rejected when additionalProperties is false.
  void CheckProperties(dom::object keywords, dom::element value, const std::string& path) {
    if (!value.is_object()) return;
    dom::object properties = keywords["properties"].get_object();
    dom::element additional;
    bool has_additional = keywords["additionalProperties"].get(additional) == simdjson::SUCCESS;
    for (auto [key, sub] : value.get_object()) {
      std::string sub_path = path + "." + std::string(key);
      dom::element property;
      if (properties[key].get(property) == simdjson::SUCCESS) {
        Check(property, sub, sub_path);
      } else if (has_additional && additional.is_bool()) {
        if (!bool(additional)) Error(sub_path, "key not in the schema");
      } else if (has_additional) {
        Check(additional, sub, sub_path);
      }
    }
  }

  dom::element root_;
  std::vector<std::string> errors_;
};

}  // namespace gpuwhy::report_schema
