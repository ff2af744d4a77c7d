# Runs cmake/LayerCheck.cmake on fake trees: each deliberate violation (an include, a relative
# include, a link, an include directory crossing the table the wrong way) must fail with a line
# naming it; the clean fake tree and the real tree must pass.
cmake_minimum_required(VERSION 3.25)
set(check ${NNEMU_SOURCE_DIR}/cmake/LayerCheck.cmake)
file(REMOVE_RECURSE ${WORK_DIR})

function(write path text)
  file(WRITE ${WORK_DIR}/${path} "${text}\n")
endfunction()

# expect(<name> <PASS|FAIL> <expected output, for FAIL> <command...>)
function(expect name outcome expected)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \t\r\n]+" " " text "${out}${err}")
  if(outcome STREQUAL "PASS" AND NOT result EQUAL 0)
    message(FATAL_ERROR "${name}: the layer check failed on a clean tree:\n${out}${err}")
  elseif(outcome STREQUAL "FAIL")
    if(result EQUAL 0)
      message(FATAL_ERROR "${name}: the layer check let a violation through")
    endif()
    string(FIND "${text}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: expected \"${expected}\" in:\n${out}${err}")
    endif()
  endif()
  message(STATUS "${name}: ${outcome} as expected")
endfunction()

# Include check, script mode.
write(includes/base/include/nnemu/base/Log.h "#pragma once")
write(includes/hal/include/nnemu/hal/Types.h "#pragma once\n#include \"nnemu/base/Log.h\"")
write(includes/driver/cpu/Executor.cpp "#include \"nnemu/hal/Types.h\"\n#include <vector>")
write(includes/tools/tool.cpp "#include <android/NeuralNetworks.h>\n#include \"nnemu/props/Properties.h\"")
expect(clean_tree PASS "" ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})

write(includes/props/Bad.cpp "#include \"nnemu/base/Log.h\"\n  #  include <nnemu/hal/Types.h>")
expect(upward_include FAIL "props/Bad.cpp (props) includes nnemu/hal/Types.h (hal)"
       ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})
file(REMOVE ${WORK_DIR}/includes/props/Bad.cpp)

write(includes/tools/bad.cpp "#include \"../driver/cpu/Executor.h\"")
expect(relative_include FAIL "tools/bad.cpp (tools) includes ../driver/cpu/Executor.h (cpu)"
       ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})
file(REMOVE ${WORK_DIR}/includes/tools/bad.cpp)

write(includes/driver/synap/Fallback.cpp "#include \"nnemu/cpu/Executor.h\"")
expect(driver_to_driver FAIL "driver/synap/Fallback.cpp (synap) includes nnemu/cpu/Executor.h (cpu)"
       ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})
file(REMOVE ${WORK_DIR}/includes/driver/synap/Fallback.cpp)

write(includes/driver/synap/cache/Store.cpp "#include \"nnemu/cache/SqliteDatabase.h\"\n#include \"nnemu/synap/DirectAccess.h\"")
expect(cache_to_its_driver FAIL "driver/synap/cache/Store.cpp (synap_cache) includes nnemu/synap/DirectAccess.h (synap)"
       ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})
file(REMOVE ${WORK_DIR}/includes/driver/synap/cache/Store.cpp)

# synap-npu's compiler and core share only the program (issue 26 part 7): each may include
# program/, neither the other.
write(includes/driver/synap/program/ProgramVersion.h "#pragma once")
write(includes/driver/synap/core/NpuCore.h "#pragma once\n#include \"../program/ProgramVersion.h\"")
write(includes/driver/synap/compiler/Compiler.h "#pragma once\n#include \"../program/ProgramVersion.h\"")
expect(synap_parts_clean PASS "" ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})
write(includes/driver/synap/compiler/Packer.cpp "#include \"../core/NpuCore.h\"")
expect(compiler_to_core FAIL "driver/synap/compiler/Packer.cpp (synap_compiler) includes ../core/NpuCore.h (synap_core)"
       ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})
file(REMOVE ${WORK_DIR}/includes/driver/synap/compiler/Packer.cpp)
write(includes/driver/synap/core/Load.cpp "#include \"../compiler/Compiler.h\"")
expect(core_to_compiler FAIL "driver/synap/core/Load.cpp (synap_core) includes ../compiler/Compiler.h (synap_compiler)"
       ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})
file(REMOVE ${WORK_DIR}/includes/driver/synap/core/Load.cpp)
write(includes/driver/synap/program/Packing.cpp "#include \"../core/NpuCore.h\"")
expect(program_to_core FAIL "driver/synap/program/Packing.cpp (synap_program) includes ../core/NpuCore.h (synap_core)"
       ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${WORK_DIR}/includes -P ${check})
file(REMOVE ${WORK_DIR}/includes/driver/synap/program/Packing.cpp)

# Link and include-directory checks: tiny projects without languages, configured.
function(project_tree name body)
  write(${name}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)\nproject(${name} NONE)\n${body}\ninclude(${check})\nnnemu_check_layering()")
  file(MAKE_DIRECTORY ${WORK_DIR}/${name}/hal/include ${WORK_DIR}/${name}/driver/cpu/include ${WORK_DIR}/${name}/tools)
  write(${name}/hal/CMakeLists.txt "add_library(nnemu_hal INTERFACE)\ntarget_include_directories(nnemu_hal INTERFACE \${CMAKE_CURRENT_SOURCE_DIR}/include)")
  write(${name}/props/CMakeLists.txt "add_library(nnemu_props INTERFACE)")
  write(${name}/driver/cpu/CMakeLists.txt "add_library(nnemu_cpu INTERFACE)\ntarget_link_libraries(nnemu_cpu INTERFACE nnemu_hal)")
endfunction()
set(subdirs "add_subdirectory(hal)\nadd_subdirectory(props)\nadd_subdirectory(driver/cpu)\nadd_subdirectory(tools)")

project_tree(links_clean "${subdirs}")
write(links_clean/tools/CMakeLists.txt "add_library(tool INTERFACE)\ntarget_link_libraries(tool INTERFACE nnemu_props)")
expect(clean_links PASS "" ${CMAKE_COMMAND} -S ${WORK_DIR}/links_clean -B ${WORK_DIR}/links_clean/build)

project_tree(links_bad "${subdirs}")
write(links_bad/props/CMakeLists.txt "add_library(nnemu_props INTERFACE)\ntarget_link_libraries(nnemu_props INTERFACE nnemu_cpu)")
write(links_bad/tools/CMakeLists.txt "add_library(tool INTERFACE)")
expect(upward_link FAIL "nnemu_props (props) links nnemu_cpu (cpu)"
       ${CMAKE_COMMAND} -S ${WORK_DIR}/links_bad -B ${WORK_DIR}/links_bad/build)

project_tree(include_dir_bad "${subdirs}")
write(include_dir_bad/tools/CMakeLists.txt
      "add_library(tool INTERFACE)\ntarget_include_directories(tool INTERFACE \${PROJECT_SOURCE_DIR}/driver/cpu/include)")
expect(include_directory FAIL "tool (tools) has driver/cpu/include (cpu) on its include path"
       ${CMAKE_COMMAND} -S ${WORK_DIR}/include_dir_bad -B ${WORK_DIR}/include_dir_bad/build)

# The real tree's includes.
expect(this_tree PASS "" ${CMAKE_COMMAND} -DNNEMU_LAYER_CHECK_ROOT=${NNEMU_SOURCE_DIR} -P ${check})
