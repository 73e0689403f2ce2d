# dtf_generate_protobuf_cpp(<sources-var> PROTO_DIR <dir> OUT_DIR <dir>
#                           PROTOS <name>...)
#
# Runs protoc on <dir>/<name>.proto for each name (they may import each
# other), writing <name>.pb.cc and .pb.h to OUT_DIR, and sets <sources-var>
# to the .pb.cc files, compiled without warnings (generated code is not
# ours to fix). The copies of TensorFlow's .proto files (events, examples,
# graphs) are built this way.
function(dtf_generate_protobuf_cpp sources)
  cmake_parse_arguments(ARG "" "PROTO_DIR;OUT_DIR" "PROTOS" ${ARGN})
  find_package(Protobuf REQUIRED)
  if(NOT TARGET protobuf::protoc)
    message(FATAL_ERROR "protoc not found; install protobuf-compiler")
  endif()
  file(MAKE_DIRECTORY ${ARG_OUT_DIR})
  set(files)
  foreach(proto ${ARG_PROTOS})
    list(APPEND files ${ARG_PROTO_DIR}/${proto}.proto)
  endforeach()
  set(generated)
  foreach(proto ${ARG_PROTOS})
    add_custom_command(
      OUTPUT ${ARG_OUT_DIR}/${proto}.pb.cc ${ARG_OUT_DIR}/${proto}.pb.h
      COMMAND protobuf::protoc
        --proto_path=${ARG_PROTO_DIR}
        --cpp_out=${ARG_OUT_DIR}
        ${ARG_PROTO_DIR}/${proto}.proto
      DEPENDS ${files} protobuf::protoc
      COMMENT "Generating C++ code from ${proto}.proto"
      VERBATIM)
    list(APPEND generated ${ARG_OUT_DIR}/${proto}.pb.cc)
  endforeach()
  set_source_files_properties(${generated} PROPERTIES COMPILE_OPTIONS "-w")
  set(${sources} ${generated} PARENT_SCOPE)
endfunction()
