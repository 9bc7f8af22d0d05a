#!/usr/bin/env python3
"""What of the schema the C API reaches, field by field.

Every field of every message in schema/onnx.schema is listed below exactly
once: with the onnxview.h functions that read it, or with why C has none.
The test fails when a schema field is missing from the list (a field added
to the schema needs a decision here), when the list names a field the
schema lacks, or when it names a function include/onnxview.h does not
declare. It prints how many fields C reaches.

    schema_coverage.py SOURCE_ROOT
"""
import re
import sys
from pathlib import Path

# Why whole messages are not reached from C: the C API covers what a runtime
# loading a model needs; the rest stays with the C++ views (every field).
TRAINING = "training graphs: C++ (model_view::training_info) and the CLI"
DISTRIBUTED = "multi-device configuration (IR 11): C++ views only"
DATA_FILES = "onnx-data.proto values (SequenceProto/MapProto/OptionalProto files): C++ views only"
OPERATORS = "onnx-operators.proto (operator set files): C++ views only"
ANNOTATIONS = "quantization annotations: C++ (graph_view::quantization_annotation)"
FIELD_METADATA = "metadata_props below the model: C++ views only"
VIA_STORAGE = "onnxview_tensor_storage (kind, field, element count) and the data functions"

COVERAGE = {
    "ModelProto": {
        "ir_version": ["onnxview_model_ir_version"],
        "producer_name": ["onnxview_model_producer_name"],
        "producer_version": ["onnxview_model_producer_version"],
        "domain": ["onnxview_model_domain"],
        "model_version": ["onnxview_model_model_version"],
        "doc_string": ["onnxview_model_doc_string"],
        "graph": ["onnxview_model_graph", "onnxview_model_has_graph"],
        "opset_import": ["onnxview_model_opset", "onnxview_model_opset_count"],
        "metadata_props": ["onnxview_model_metadata", "onnxview_model_metadata_count"],
        "training_info": TRAINING,
        "functions": ["onnxview_model_function", "onnxview_model_function_count"],
        "configuration": DISTRIBUTED,
    },
    "GraphProto": {
        "node": ["onnxview_graph_node", "onnxview_graph_node_count", "onnxview_node_next"],
        "name": ["onnxview_graph_name"],
        "initializer": ["onnxview_graph_initializer", "onnxview_graph_initializer_count",
                        "onnxview_graph_find_initializer", "onnxview_tensor_next"],
        "doc_string": ["onnxview_graph_doc_string"],
        "input": ["onnxview_graph_input", "onnxview_graph_input_count"],
        "output": ["onnxview_graph_output", "onnxview_graph_output_count"],
        "value_info": ["onnxview_graph_value_info", "onnxview_graph_value_info_count"],
        "quantization_annotation": ANNOTATIONS,
        "sparse_initializer": ["onnxview_graph_sparse_initializer", "onnxview_graph_sparse_initializer_count"],
        "metadata_props": FIELD_METADATA,
    },
    "NodeProto": {
        "input": ["onnxview_node_input", "onnxview_node_input_count"],
        "output": ["onnxview_node_output", "onnxview_node_output_count"],
        "name": ["onnxview_node_name"],
        "op_type": ["onnxview_node_op_type"],
        "attribute": ["onnxview_node_attribute", "onnxview_node_attribute_count", "onnxview_node_find_attribute"],
        "doc_string": ["onnxview_node_doc_string"],
        "domain": ["onnxview_node_domain"],
        "overload": ["onnxview_node_overload"],
        "metadata_props": FIELD_METADATA,
        "device_configurations": DISTRIBUTED,
    },
    "AttributeProto": {
        "name": ["onnxview_attribute_name"],
        "f": ["onnxview_attribute_f"],
        "i": ["onnxview_attribute_i"],
        "s": ["onnxview_attribute_s"],
        "t": ["onnxview_attribute_t"],
        "g": ["onnxview_attribute_g"],
        "floats": ["onnxview_attribute_floats"],
        "ints": ["onnxview_attribute_ints"],
        "strings": ["onnxview_attribute_strings_count", "onnxview_attribute_string_at"],
        "tensors": ["onnxview_attribute_tensors_count", "onnxview_attribute_tensor_at"],
        "graphs": ["onnxview_attribute_graphs_count", "onnxview_attribute_graph_at"],
        "doc_string": ["onnxview_attribute_doc_string"],
        "tp": ["onnxview_attribute_tp"],
        "type_protos": ["onnxview_attribute_type_protos_count", "onnxview_attribute_type_proto_at"],
        "type": ["onnxview_attribute_type", "onnxview_attribute_type_name"],
        "ref_attr_name": ["onnxview_attribute_ref_attr_name"],
        "sparse_tensor": ["onnxview_attribute_sparse_tensor"],
        "sparse_tensors": ["onnxview_attribute_sparse_tensors_count", "onnxview_attribute_sparse_tensor_at"],
    },
    "ValueInfoProto": {
        "name": ["onnxview_value_info_name"],
        "type": ["onnxview_value_info_type"],
        "doc_string": ["onnxview_value_info_doc_string"],
        "metadata_props": FIELD_METADATA,
    },
    "TensorProto": {
        "dims": ["onnxview_tensor_dims"],
        "data_type": ["onnxview_tensor_data_type", "onnxview_data_type_name"],
        "segment": ["onnxview_tensor_has_segment"],
        "float_data": VIA_STORAGE,
        "int32_data": VIA_STORAGE,
        "string_data": ["onnxview_tensor_string_at"],
        "int64_data": VIA_STORAGE,
        "name": ["onnxview_tensor_name"],
        "raw_data": ["onnxview_tensor_has_raw_data", "onnxview_tensor_data", "onnxview_tensor_copy"],
        "double_data": VIA_STORAGE,
        "uint64_data": VIA_STORAGE,
        "doc_string": ["onnxview_tensor_doc_string"],
        "external_data": ["onnxview_tensor_external_data", "onnxview_tensor_external_data_count"],
        "data_location": ["onnxview_tensor_data_location"],
        "metadata_props": FIELD_METADATA,
    },
    "TensorProto.Segment": {
        "begin": "segmented tensors are refused by the data functions (onnxview_tensor_has_segment says so)",
        "end": "segmented tensors are refused by the data functions (onnxview_tensor_has_segment says so)",
    },
    "SparseTensorProto": {
        "values": ["onnxview_sparse_values"],
        "indices": ["onnxview_sparse_indices"],
        "dims": ["onnxview_sparse_dims"],
    },
    "TensorShapeProto": {"dim": ["onnxview_type_rank", "onnxview_type_dim", "onnxview_type_has_shape"]},
    "TensorShapeProto.Dimension": {
        "dim_value": ["onnxview_type_dim"],
        "dim_param": ["onnxview_type_dim"],
        "denotation": ["onnxview_type_dim"],
    },
    "TypeProto": {
        "tensor_type": ["onnxview_type_kind"],
        "sequence_type": ["onnxview_type_kind", "onnxview_type_element"],
        "map_type": ["onnxview_type_kind", "onnxview_type_element"],
        "denotation": ["onnxview_type_denotation"],
        "opaque_type": ["onnxview_type_kind", "onnxview_type_opaque"],
        "sparse_tensor_type": ["onnxview_type_kind"],
        "optional_type": ["onnxview_type_kind", "onnxview_type_element"],
    },
    "TypeProto.Tensor": {"elem_type": ["onnxview_type_elem_type"], "shape": ["onnxview_type_has_shape"]},
    "TypeProto.Sequence": {"elem_type": ["onnxview_type_element"]},
    "TypeProto.Map": {"key_type": ["onnxview_type_elem_type"], "value_type": ["onnxview_type_element"]},
    "TypeProto.Optional": {"elem_type": ["onnxview_type_element"]},
    "TypeProto.SparseTensor": {"elem_type": ["onnxview_type_elem_type"], "shape": ["onnxview_type_has_shape"]},
    "TypeProto.Opaque": {"domain": ["onnxview_type_opaque"], "name": ["onnxview_type_opaque"]},
    "OperatorSetIdProto": {
        "domain": ["onnxview_model_opset", "onnxview_function_opset"],
        "version": ["onnxview_model_opset", "onnxview_function_opset"],
    },
    "FunctionProto": {
        "name": ["onnxview_function_name"],
        "input": ["onnxview_function_input", "onnxview_function_input_count"],
        "output": ["onnxview_function_output", "onnxview_function_output_count"],
        "attribute": ["onnxview_function_attribute", "onnxview_function_attribute_count"],
        "node": ["onnxview_function_node", "onnxview_function_node_count"],
        "doc_string": ["onnxview_function_doc_string"],
        "opset_import": ["onnxview_function_opset", "onnxview_function_opset_count"],
        "domain": ["onnxview_function_domain"],
        "attribute_proto": "attributes with defaults (IR 9): C++ (function_view::attribute_proto)",
        "value_info": "value infos of function bodies (IR 10): C++ (function_view::value_info)",
        "overload": ["onnxview_function_overload"],
        "metadata_props": FIELD_METADATA,
    },
    "TrainingInfoProto": {f: TRAINING for f in ("initialization", "algorithm", "initialization_binding",
                                                "update_binding")},
    "StringStringEntryProto": {
        "key": ["onnxview_model_metadata", "onnxview_tensor_external_data"],
        "value": ["onnxview_model_metadata", "onnxview_tensor_external_data"],
    },
    "TensorAnnotation": {"tensor_name": ANNOTATIONS, "quant_parameter_tensor_names": ANNOTATIONS},
    "IntIntListEntryProto": {"key": DISTRIBUTED, "value": DISTRIBUTED},
    "DeviceConfigurationProto": {f: DISTRIBUTED for f in ("name", "num_devices", "device")},
    "NodeDeviceConfigurationProto": {f: DISTRIBUTED for f in ("configuration_id", "sharding_spec",
                                                              "pipeline_stage")},
    "ShardingSpecProto": {f: DISTRIBUTED for f in ("tensor_name", "device", "index_to_device_group_map",
                                                   "sharded_dim")},
    "ShardedDimProto": {f: DISTRIBUTED for f in ("axis", "simple_sharding")},
    "SimpleShardedDimProto": {f: DISTRIBUTED for f in ("dim_value", "dim_param", "num_shards")},
    "SequenceProto": {f: DATA_FILES for f in ("name", "elem_type", "tensor_values", "sparse_tensor_values",
                                              "sequence_values", "map_values", "optional_values")},
    "MapProto": {f: DATA_FILES for f in ("name", "key_type", "keys", "string_keys", "values")},
    "OptionalProto": {f: DATA_FILES for f in ("name", "elem_type", "tensor_value", "sparse_tensor_value",
                                              "sequence_value", "map_value", "optional_value")},
    "OperatorProto": {f: OPERATORS for f in ("op_type", "since_version", "status", "doc_string")},
    "OperatorSetProto": {f: OPERATORS for f in ("magic", "ir_version", "ir_version_prerelease", "domain",
                                                "opset_version", "doc_string", "ir_build_metadata", "operator",
                                                "functions")},
}


def schema_fields(root: Path):
    """{message: [field names]} from schema/onnx.schema's member lines."""
    out, current = {}, None
    for raw in (root / "schema/onnx.schema").read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line:
            continue
        words = line.split()
        if not raw[0].isspace():
            current = words[1] if words[0] == "message" else None
            if current is not None:
                out[current] = []
        elif current is not None:
            out[current].append(words[1])
    return out


def main(root: Path) -> int:
    header = (root / "include/onnxview.h").read_text(encoding="utf-8")
    declared = set(re.findall(r"\b(onnxview_\w+)\s*\(", header))
    schema = schema_fields(root)
    problems, reached, total = [], 0, 0
    for message, fields in schema.items():
        listed = COVERAGE.get(message, {})
        for field in fields:
            total += 1
            entry = listed.get(field)
            if entry is None:
                problems.append(f"{message}.{field}: not listed (name the C functions that read it, or say why none)")
            elif isinstance(entry, list):
                reached += 1
                problems += [f"{message}.{field}: {fn} is not declared in onnxview.h"
                             for fn in entry if fn not in declared]
        problems += [f"{message}.{field}: listed but not in the schema" for field in listed if field not in fields]
    problems += [f"{message}: listed but not in the schema" for message in COVERAGE if message not in schema]
    print(f"the C API reaches {reached} of the schema's {total} fields; the rest are listed with the reason")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
