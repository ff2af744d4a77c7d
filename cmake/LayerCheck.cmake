# Layering rules checked at configure time, against one table (kept in sync with the layer table
# of docs/architecture.md). A layer is a set of source folders; it may use the layers listed as
# its USES and nothing else. Checked two ways, and any violation fails the configure:
#   links:    every target defined under a layer's folders (tools and delegates included) links
#             only targets of its own layer or of layers it may use; tests/ is no layer.
#   includes: every source and header under a layer's folders includes another layer's public
#             headers (nnemu/<dir>/..., android/...) or, by a relative path, its files only when
#             it may use that layer; every target's include directories name another layer's
#             folders only when it may use that layer, and then only its public include/ folders.
# Known violations that are being removed are listed as explicit exceptions below, with why.
#
# Script mode, for the self-test (tests/layers): only the include check, over another tree:
#   cmake -DNNEMU_LAYER_CHECK_ROOT=<tree> -P cmake/LayerCheck.cmake
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)
endif()

# name          folders (relative to the source root)   may use
set(NNEMU_LAYERS base kernels props cache hal cpu synap_log synap_cache synap_kernels synap_stats synap_program
    synap_compiler synap_core synap runtime abi frontends tools delegates)
set(NNEMU_LAYER_base_DIRS base)
set(NNEMU_LAYER_base_USES "")
set(NNEMU_LAYER_kernels_DIRS kernels/common)
set(NNEMU_LAYER_kernels_USES "")
set(NNEMU_LAYER_props_DIRS props)
set(NNEMU_LAYER_props_USES base)
set(NNEMU_LAYER_cache_DIRS cache)
set(NNEMU_LAYER_cache_USES base)
set(NNEMU_LAYER_hal_DIRS hal)
set(NNEMU_LAYER_hal_USES base)
set(NNEMU_LAYER_cpu_DIRS driver/cpu)
set(NNEMU_LAYER_cpu_USES base kernels props hal)
# synap-npu's log format and its compilation cache sit below the driver, beside it.
set(NNEMU_LAYER_synap_log_DIRS driver/synap/log)
set(NNEMU_LAYER_synap_log_USES base)
set(NNEMU_LAYER_synap_cache_DIRS driver/synap/cache)
set(NNEMU_LAYER_synap_cache_USES base cache synap_log)
# synap-npu's own parts (issue 26 part 7): the own int8 kernels and their weight layouts (pure
# functions of their specs); the statistics files; the program (its schema, version, tensor
# accessors, the core's limits and the weight packers: all the compiler and the core share);
# the compiler (lowering rules, builder), which never sees the core; the core (layer kinds,
# stages, arena, threads, own-kernel layers), which never sees the compiler; and the device on
# top (driver/synap/device, the HAL device, prepared networks, the JIT trigger, public include/).
set(NNEMU_LAYER_synap_kernels_DIRS driver/synap/kernels)
set(NNEMU_LAYER_synap_kernels_USES kernels)
set(NNEMU_LAYER_synap_stats_DIRS driver/synap/stats)
set(NNEMU_LAYER_synap_stats_USES base props synap_log)
set(NNEMU_LAYER_synap_program_DIRS driver/synap/program)
set(NNEMU_LAYER_synap_program_USES base kernels synap_kernels)
set(NNEMU_LAYER_synap_compiler_DIRS driver/synap/compiler)
set(NNEMU_LAYER_synap_compiler_USES base kernels hal props synap_log synap_program)
set(NNEMU_LAYER_synap_core_DIRS driver/synap/core)
set(NNEMU_LAYER_synap_core_USES base kernels hal props cache synap_log synap_kernels synap_stats synap_program)
set(NNEMU_LAYER_synap_DIRS driver/synap)
set(NNEMU_LAYER_synap_USES base kernels props cache hal synap_log synap_cache synap_kernels synap_stats synap_program
    synap_compiler synap_core)
set(NNEMU_LAYER_runtime_DIRS runtime)
set(NNEMU_LAYER_runtime_USES base kernels props cache hal cpu synap_log synap_cache synap)
# abi: TFLite's external-delegate C ABI as nnemu declares it.
set(NNEMU_LAYER_abi_DIRS delegates/abi)
set(NNEMU_LAYER_abi_USES "")
# frontends: the TFLite front end (the model view and its two readers, the mapping to NNAPI, the
# CPU kernels, the interpreter); the public C API (the runtime's android/ headers and library)
# and the lower layers without the HAL or a driver.
set(NNEMU_LAYER_frontends_DIRS frontends)
set(NNEMU_LAYER_frontends_USES base kernels runtime abi)
# tools: executables over the public C API and the front end.
set(NNEMU_LAYER_tools_DIRS tools)
set(NNEMU_LAYER_tools_USES base kernels props cache runtime abi frontends)
# delegates: in-process TFLite delegates; they embed the drivers (not the runtime) and use the
# front end's mapping through its public headers.
set(NNEMU_LAYER_delegates_DIRS delegates)
set(NNEMU_LAYER_delegates_USES base kernels props cache hal cpu synap_log synap_cache synap frontends abi)

# Public header folders (the path after include/) and the layer they belong to.
set(NNEMU_LAYER_HEADERS
    nnemu/base=base nnemu/kernels=kernels nnemu/props=props nnemu/cache=cache nnemu/hal=hal
    nnemu/cpu=cpu nnemu/synap=synap nnemu/synap/cache=synap_cache android=runtime nnemu/tflite=frontends nnemu/modelgen=tools
    nnemu/delegate=abi)

# Exceptions: <target or file, relative to the source root>-><layer>, each with its reason.
set(NNEMU_LAYER_EXCEPTIONS
    # nnemu-sysfs shows the statistics files computed exactly as synap-npu publishes them: it
    # links the driver's statistics library (StatisticsView.h), on purpose.
    nnemu-sysfs->synap_stats
    # synap_cache inspects and maintains the driver's SyNAP cache: it links and includes the
    # driver's cache library (driver/synap/cache), nothing else of the driver.
    synap_cache->synap_cache
    tools/synap_cache/synap_cache.cpp->synap_cache
)

# The layer a path (relative to the source root) lies in: the longest matching folder, or "".
function(nnemu_layer_of_path path out)
  set(best "")
  set(bestLength 0)
  foreach(layer IN LISTS NNEMU_LAYERS)
    foreach(dir IN LISTS NNEMU_LAYER_${layer}_DIRS)
      string(LENGTH "${dir}" length)
      if((path STREQUAL dir OR path MATCHES "^${dir}/") AND length GREATER bestLength)
        set(best ${layer})
        set(bestLength ${length})
      endif()
    endforeach()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

# TRUE when `layer` may use `other` (its own layer included).
function(nnemu_layer_may_use layer other out)
  if(layer STREQUAL other OR other IN_LIST NNEMU_LAYER_${layer}_USES)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# The include check over the tree at `root`; appends one line per violation to `out`.
function(nnemu_check_includes root out)
  set(violations ${${out}})
  foreach(layer IN LISTS NNEMU_LAYERS)
    foreach(dir IN LISTS NNEMU_LAYER_${layer}_DIRS)
      file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE ${root}
           ${root}/${dir}/*.h ${root}/${dir}/*.hpp ${root}/${dir}/*.c ${root}/${dir}/*.cc ${root}/${dir}/*.cpp)
      foreach(file IN LISTS files)
        nnemu_layer_of_path(${file} fileLayer)
        if(NOT fileLayer STREQUAL layer)
          continue()  # a folder of a nested layer (delegates/abi under delegates)
        endif()
        file(STRINGS ${root}/${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
        foreach(line IN LISTS lines)
          if(NOT line MATCHES "#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
            continue()
          endif()
          set(included ${CMAKE_MATCH_1})
          set(otherLayer "")
          if(included MATCHES "^\\.\\./")
            get_filename_component(fileDir ${root}/${file} DIRECTORY)
            get_filename_component(target ${fileDir}/${included} ABSOLUTE)
            file(RELATIVE_PATH relative ${root} ${target})
            nnemu_layer_of_path("${relative}" otherLayer)
          else()
            set(bestLength 0)
            foreach(entry IN LISTS NNEMU_LAYER_HEADERS)
              string(REPLACE "=" ";" pair ${entry})
              list(GET pair 0 prefix)
              list(GET pair 1 headerLayer)
              string(LENGTH "${prefix}" length)
              if(included MATCHES "^${prefix}/" AND length GREATER bestLength)
                set(otherLayer ${headerLayer})
                set(bestLength ${length})
              endif()
            endforeach()
          endif()
          if(otherLayer STREQUAL "")
            continue()
          endif()
          nnemu_layer_may_use(${layer} ${otherLayer} allowed)
          if(NOT allowed AND NOT "${file}->${otherLayer}" IN_LIST NNEMU_LAYER_EXCEPTIONS)
            list(APPEND violations "${file} (${layer}) includes ${included} (${otherLayer})")
          endif()
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  set(${out} ${violations} PARENT_SCOPE)
endfunction()

function(nnemu_report_layer_violations violations)
  if(violations)
    list(JOIN violations "\n  " text)
    message(FATAL_ERROR "Layering violations (cmake/LayerCheck.cmake, docs/architecture.md):\n  ${text}\n"
                        "A lower layer never uses a higher one: move what it needs down instead.")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT NNEMU_LAYER_CHECK_ROOT)
    message(FATAL_ERROR "usage: cmake -DNNEMU_LAYER_CHECK_ROOT=<tree> -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  set(violations "")
  nnemu_check_includes(${NNEMU_LAYER_CHECK_ROOT} violations)
  nnemu_report_layer_violations("${violations}")
  return()
endif()

# Every target defined in `dir` and below.
function(nnemu_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    nnemu_collect_targets(${subdir} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(nnemu_layer_of_target target out)
  get_target_property(dir ${target} SOURCE_DIR)
  file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR} ${dir})
  nnemu_layer_of_path("${relative}" layer)
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

# The link and include-directory check over every target of the project.
function(nnemu_check_targets out)
  set(violations ${${out}})
  nnemu_collect_targets(${CMAKE_SOURCE_DIR} targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "UTILITY")
      continue()
    endif()
    nnemu_layer_of_target(${target} layer)
    if(layer STREQUAL "")
      continue()  # tests/, and whatever no layer holds
    endif()
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(links ${target} ${property})
      foreach(link IN LISTS links)
        if(NOT link OR NOT TARGET ${link})
          continue()
        endif()
        get_target_property(imported ${link} IMPORTED)
        if(imported)
          continue()
        endif()
        nnemu_layer_of_target(${link} linkLayer)
        if(linkLayer STREQUAL "")
          continue()
        endif()
        nnemu_layer_may_use(${layer} ${linkLayer} allowed)
        if(NOT allowed AND NOT "${target}->${linkLayer}" IN_LIST NNEMU_LAYER_EXCEPTIONS)
          list(APPEND violations "${target} (${layer}) links ${link} (${linkLayer})")
        endif()
      endforeach()
    endforeach()
    foreach(property INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES)
      get_target_property(dirs ${target} ${property})
      foreach(dir IN LISTS dirs)
        if(NOT dir OR dir MATCHES "\\$<" OR NOT IS_ABSOLUTE "${dir}")
          continue()
        endif()
        file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR} ${dir})
        if(relative MATCHES "^\\.\\./" OR dir MATCHES "^${CMAKE_BINARY_DIR}/")
          continue()
        endif()
        nnemu_layer_of_path("${relative}" dirLayer)
        if(dirLayer STREQUAL "" OR dirLayer STREQUAL layer)
          continue()
        endif()
        nnemu_layer_may_use(${layer} ${dirLayer} allowed)
        if(allowed AND NOT relative MATCHES "/include$")
          set(allowed FALSE)  # another layer's private folder
        endif()
        if(NOT allowed AND NOT "${target}->${relative}" IN_LIST NNEMU_LAYER_EXCEPTIONS
           AND NOT "${target}->${dirLayer}" IN_LIST NNEMU_LAYER_EXCEPTIONS)
          list(APPEND violations "${target} (${layer}) has ${relative} (${dirLayer}) on its include path")
        endif()
      endforeach()
    endforeach()
  endforeach()
  set(${out} ${violations} PARENT_SCOPE)
endfunction()

function(nnemu_check_layering)
  set(violations "")
  nnemu_check_targets(violations)
  nnemu_check_includes(${CMAKE_SOURCE_DIR} violations)
  nnemu_report_layer_violations("${violations}")
endfunction()
