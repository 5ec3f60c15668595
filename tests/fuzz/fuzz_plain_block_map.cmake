drover_fuzz_target(fuzz_plain_block_map SOURCE fuzz_plain_block_map.cpp
                   LIBS drover_config ${DROVER_YAML_CPP_LIB})
