# One way to declare a module library and one way to declare its tests, used
# by every folder (core/*, profiler, viz/*, app/*, samples, tests/*).
#
#   rammer_module(<target> DIRS <dir>... [EXCLUDE <regex>] [SOURCES <file>...]
#                 [PUBLIC <dep>...] [PRIVATE <dep>...] [QT] [CORE])
#
# Sources are every .cpp under DIRS (recursively, relative to the calling
# CMakeLists), so a new file needs no CMake edit; QT turns on AUTOMOC (the
# headers are listed too, for moc); CORE adds the library to rammer_core.
# Every module sees the repository root as its include root
# ("core/ops/op_registry.h").
function(rammer_module name)
  cmake_parse_arguments(M "QT;CORE" "EXCLUDE" "DIRS;SOURCES;PUBLIC;PRIVATE" ${ARGN})
  set(sources ${M_SOURCES})
  foreach(dir ${M_DIRS})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.cpp)
    if(M_QT)
      file(GLOB_RECURSE headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.h)
      list(APPEND found ${headers})
    endif()
    list(APPEND sources ${found})
  endforeach()
  if(M_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "${M_EXCLUDE}")
  endif()
  list(SORT sources)
  add_library(${name} STATIC ${sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${M_PUBLIC} PRIVATE ${M_PRIVATE})
  if(M_QT)
    set_target_properties(${name} PROPERTIES AUTOMOC ON)
  endif()
  if(M_CORE)
    target_link_libraries(rammer_core INTERFACE ${name})
  endif()
endfunction()

#   rammer_module_tests(<target> DIR <dir> [LINK <dep>...] [QT])
#
# One GoogleTest binary per test folder (tests mirror the module's folders):
# every *_test.cpp under DIR, recursively; each test a ctest entry labelled
# with the binary's name. QT tests run a QApplication (tests/viz/
# qt_test_main.cpp), draw offscreen and get AUTOMOC.
function(rammer_module_tests name)
  cmake_parse_arguments(T "QT" "DIR" "LINK" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${T_DIR}/*_test.cpp)
  if(NOT sources)
    return()
  endif()
  list(SORT sources)
  if(T_QT)
    add_executable(${name} ${sources} ${PROJECT_SOURCE_DIR}/tests/viz/qt_test_main.cpp)
    target_link_libraries(${name} PRIVATE rammer_core ${T_LINK} Qt6::Test GTest::gtest)
    set_target_properties(${name} PROPERTIES AUTOMOC ON)
    set(env ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
  else()
    add_executable(${name} ${sources})
    target_link_libraries(${name} PRIVATE rammer_core GTest::gtest GTest::gtest_main ${T_LINK})
    set(env "")
  endif()
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE
    RAMMER_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    RAMMER_SHARED_DIR="${RAMMER_SHARED_DIR}"
    RAMMER_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 120 PROPERTIES LABELS ${name} ${env})
endfunction()
