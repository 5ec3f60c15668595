# drover_static_executable(<target>): link a short-lived executable (the CLIs, drover-stepd) as
# a fully static binary when every library it links has a static archive. Such a binary starts
# without the dynamic loader: no shared objects to map, no symbol lookups, no relocations
# (docs/performance.md, "Process start-up"). Where some library in its link closure is only
# shared (gRPC, SQLite, or a dependency found without its archive), it falls back to linking
# libstdc++/libgcc statically and dropping unused shared libraries (--as-needed).
#
# The check runs when the top-level directory has been processed, so every target in the
# closure is defined by then.

# Appends to ${out} the shared libraries found in <item>'s link closure.
function(_drover_shared_in_closure item out)
  set(found "")
  if(item MATCHES "^\\$<LINK_ONLY:(.*)>$")
    set(item "${CMAKE_MATCH_1}")
  elseif(item MATCHES "^\\$<")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET "${item}")
    if(item MATCHES "\\.so(\\.[0-9]+)*$")
      set(found "${item}")
    endif()
    set(${out} "${found}" PARENT_SCOPE)
    return()
  endif()
  get_property(seen GLOBAL PROPERTY _DROVER_CLOSURE_SEEN)
  if("${item}" IN_LIST seen)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _DROVER_CLOSURE_SEEN "${item}")
  get_target_property(type "${item}" TYPE)
  get_target_property(imported "${item}" IMPORTED)
  if(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
    set(${out} "${item}" PARENT_SCOPE)
    return()
  endif()
  if(imported AND type STREQUAL "UNKNOWN_LIBRARY")
    get_target_property(location "${item}" IMPORTED_LOCATION)
    if(NOT location)
      get_target_property(configs "${item}" IMPORTED_CONFIGURATIONS)
      if(configs)
        list(GET configs 0 config)
        get_target_property(location "${item}" IMPORTED_LOCATION_${config})
      endif()
    endif()
    if(NOT location MATCHES "\\.a$")
      set(${out} "${item}" PARENT_SCOPE)
      return()
    endif()
  endif()
  set(deps "")
  if(NOT type STREQUAL "EXECUTABLE")
    get_target_property(deps "${item}" INTERFACE_LINK_LIBRARIES)
  endif()
  if(NOT imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(own "${item}" LINK_LIBRARIES)
    if(own)
      list(APPEND deps ${own})
    endif()
  endif()
  foreach(dep IN LISTS deps)
    if(dep)
      _drover_shared_in_closure("${dep}" dep_found)
      list(APPEND found ${dep_found})
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

function(_drover_link_static target)
  set_property(GLOBAL PROPERTY _DROVER_CLOSURE_SEEN "")
  _drover_shared_in_closure("${target}" shared)
  if(shared)
    list(REMOVE_DUPLICATES shared)
    message(STATUS "${target}: not fully static (shared only: ${shared})")
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc -Wl,--as-needed)
  else()
    # One read-only executable segment from the ELF header through the read-only data, at
    # 0x400000 (2 MiB-aligned, file offset 0): its first two 2 MiB extents can each be mapped
    # by one page table entry when the page cache holds them as 2 MiB folios
    # (cmake/write-for-huge-pages). With the default separate code segment (at 0x401000) no
    # extent is wholly inside one mapping. The read-only data becomes executable, as it was
    # before binutils 2.31; these processes run with their user's own rights.
    target_link_options(${target} PRIVATE -static -Wl,-z,noseparate-code)
  endif()
endfunction()

function(drover_static_executable target)
  if(DROVER_SANITIZE)
    return()  # the sanitizer runtimes are shared libraries
  endif()
  # Here, not in the deferred check: a POST_BUILD step belongs to the target's own directory.
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${PROJECT_SOURCE_DIR}/cmake/write-for-huge-pages $<TARGET_FILE:${target}> VERBATIM)
  if(NOT DROVER_STATIC_DEPS)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
    return()
  endif()
  # A deferred call's arguments are expanded when it runs, so the name is substituted now.
  cmake_language(EVAL CODE
    "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL _drover_link_static [[${target}]])")
endfunction()
