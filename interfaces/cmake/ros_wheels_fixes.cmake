# Fixes for building ROS 2 interface packages against the ROS 2 wheels from PyPI.
#
# Use it either as `-DCMAKE_PROJECT_INCLUDE=<this file>` or with `include()` right after
# `project()`. On a regular ROS 2 installation none of this changes anything.
#
# 1. The wheels' exported CMake targets (e.g. `*__rosidl_generator_py`) list include directories
#    of the machine that built the wheels (`/opt/python/cp311-cp311/include/python3.11`, a numpy
#    path). CMake rejects an imported target that names a missing include directory, so at the
#    end of the top-level CMakeLists we drop every entry that does not exist.
# 2. The rosidl CMake code finds its type supports through the ament index, which needs
#    AMENT_PREFIX_PATH at configure time, and find_package() needs the wheels' prefix. The
#    wheels install into the prefix of the Python that runs the build (scikit-build-core passes
#    Python_EXECUTABLE): add it to CMAKE_PREFIX_PATH, and use it as AMENT_PREFIX_PATH if unset.
# 3. ros_wheels_python_only(): called by a package's CMakeLists after find_package() of the
#    generators and before rosidl_generate_interfaces(). With ROS_WHEELS_PYTHON_ONLY=ON (the
#    pip route sets it) only what rclpy uses is generated and compiled (C, the C type supports,
#    Python); the C++ headers and type supports are skipped, which halves the build time.
#    Wire format and type hashes are unchanged.
if(CMAKE_VERSION VERSION_LESS 3.21)
  message(FATAL_ERROR "ros_wheels_fixes.cmake needs CMake >= 3.21 (cmake_language(DEFER))")
endif()
include_guard(GLOBAL)

foreach(_rwf_py IN ITEMS "${Python3_EXECUTABLE}" "${Python_EXECUTABLE}" "${PYTHON_EXECUTABLE}")
  if(_rwf_py)
    execute_process(
      COMMAND "${_rwf_py}" -c "import sys; print(sys.prefix, end='')"
      OUTPUT_VARIABLE _rwf_prefix
      RESULT_VARIABLE _rwf_rc)
    if(_rwf_rc EQUAL 0 AND EXISTS "${_rwf_prefix}/share/ament_index")
      if(NOT "${_rwf_prefix}" IN_LIST CMAKE_PREFIX_PATH)
        list(APPEND CMAKE_PREFIX_PATH "${_rwf_prefix}")
      endif()
      if("$ENV{AMENT_PREFIX_PATH}" STREQUAL "")
        message(STATUS "ros_wheels_fixes: AMENT_PREFIX_PATH=${_rwf_prefix}")
        set(ENV{AMENT_PREFIX_PATH} "${_rwf_prefix}")
      endif()
      break()
    endif()
  endif()
endforeach()

function(_rwf_drop_missing_include_dirs_in dir)
  get_directory_property(_targets DIRECTORY "${dir}" IMPORTED_TARGETS)
  foreach(_target IN LISTS _targets)
    get_target_property(_dirs ${_target} INTERFACE_INCLUDE_DIRECTORIES)
    if(NOT _dirs)
      continue()
    endif()
    set(_kept "")
    set(_dropped "")
    foreach(_dir IN LISTS _dirs)
      # Keep generator expressions: they are evaluated later, per configuration.
      if(_dir MATCHES "\\$<" OR EXISTS "${_dir}")
        list(APPEND _kept "${_dir}")
      else()
        list(APPEND _dropped "${_dir}")
      endif()
    endforeach()
    if(_dropped)
      message(STATUS "ros_wheels_fixes: ${_target}: dropped missing include dirs ${_dropped}")
      set_target_properties(${_target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_kept}")
    endif()
  endforeach()
  get_directory_property(_subdirs DIRECTORY "${dir}" SUBDIRECTORIES)
  foreach(_subdir IN LISTS _subdirs)
    _rwf_drop_missing_include_dirs_in("${_subdir}")
  endforeach()
endfunction()

function(_rwf_drop_missing_include_dirs)
  _rwf_drop_missing_include_dirs_in("${CMAKE_SOURCE_DIR}")
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _rwf_drop_missing_include_dirs)

option(ROS_WHEELS_PYTHON_ONLY "Generate only the C and Python interface code" OFF)

macro(ros_wheels_python_only)
  if(ROS_WHEELS_PYTHON_ONLY)
    set(_rwf_kept "")
    foreach(_rwf_ext IN LISTS AMENT_EXTENSIONS_rosidl_generate_idl_interfaces)
      if(_rwf_ext MATCHES "^rosidl_(generator_cpp|typesupport_cpp|typesupport_fastrtps_cpp|typesupport_introspection_cpp):")
        message(STATUS "ros_wheels_fixes: skipping ${_rwf_ext}")
      else()
        list(APPEND _rwf_kept "${_rwf_ext}")
      endif()
    endforeach()
    set(AMENT_EXTENSIONS_rosidl_generate_idl_interfaces ${_rwf_kept})
  endif()
endmacro()
