# drover_lite_variant(<library>): defines <library>_lite, the same library built against the
# lite messages (drover_proto_msgs_lite, proto/CMakeLists.txt) for the short-lived CLIs, whose
# start-up would otherwise be mostly protobuf's descriptor registration (docs/performance.md,
# "Process start-up"). It takes <library>'s sources, include directories, compile options and
# dependencies as they stand when it is called, so call it right after <library>'s own
# add_library/target_* lines; each dependency that has a lite variant (drover_proto_msgs, a
# library passed here earlier, protobuf itself) is swapped for it. The sources must use only what
# the lite runtime has (MessageLite: serialization, no descriptors or reflection).
#
# A dependency with no lite variant that links the full messages itself would bring them back
# next to the lite ones; ctest cli_lite_protobuf catches that in the linked CLIs.

set_property(GLOBAL PROPERTY DROVER_LITE_VARIANTS drover_proto_msgs)

# Sets ${out} to `items` with each dependency swapped for its lite variant.
function(_drover_lite_deps out)
  get_property(variants GLOBAL PROPERTY DROVER_LITE_VARIANTS)
  set(mapped "")
  foreach(item IN LISTS ARGN)
    set(wrapped "")
    if(item MATCHES "^\\$<LINK_ONLY:(.*)>$")  # a static library's PRIVATE dependency
      set(item "${CMAKE_MATCH_1}")
      set(wrapped LINK_ONLY)
    endif()
    if(item STREQUAL "protobuf::libprotobuf")
      set(item protobuf::libprotobuf-lite)
    elseif("${item}" IN_LIST variants)
      set(item ${item}_lite)
    elseif(item MATCHES "^(drover_proto|gRPC::)")
      message(FATAL_ERROR "a lite library cannot depend on ${item} (full protobuf or gRPC)")
    endif()
    if(wrapped)
      set(item "$<LINK_ONLY:${item}>")
    endif()
    list(APPEND mapped "${item}")
  endforeach()
  set(${out} "${mapped}" PARENT_SCOPE)
endfunction()

function(drover_lite_variant library)
  get_target_property(type ${library} TYPE)
  if(NOT type STREQUAL "STATIC_LIBRARY")
    message(FATAL_ERROR "drover_lite_variant(${library}): only static libraries have lite variants")
  endif()
  get_target_property(source_dir ${library} SOURCE_DIR)
  get_target_property(sources ${library} SOURCES)
  list(TRANSFORM sources PREPEND ${source_dir}/ REGEX "^[^/]")
  add_library(${library}_lite STATIC ${sources})
  foreach(property INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES COMPILE_OPTIONS
                   COMPILE_DEFINITIONS INTERFACE_COMPILE_DEFINITIONS)
    get_target_property(value ${library} ${property})
    if(value)
      set_property(TARGET ${library}_lite PROPERTY ${property} "${value}")
    endif()
  endforeach()
  foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(value ${library} ${property})
    if(value)
      _drover_lite_deps(lite_value ${value})
      set_property(TARGET ${library}_lite PROPERTY ${property} "${lite_value}")
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY DROVER_LITE_VARIANTS ${library})
endfunction()
