"""The schema generator: reads schema/onnx.schema, writes every generated file.

source   parses the schema source into messages and enums
views    the typed views (include/onnxview/views/*.hpp)
tables   the runtime descriptors, the enums and their names, the data-type table
tests    the generated accessor test and the generated cursor walk
"""
