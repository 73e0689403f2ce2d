// docs/tf-ops.md, the table of the TensorFlow ops dtf-translate imports, is
// the output of --list-graphdef-ops: after a change to the importer's tables,
// regenerate it with
//   build/bin/dtf-translate --list-graphdef-ops > docs/tf-ops.md
// RUN: dtf-translate --list-graphdef-ops | diff -u %S/../../docs/tf-ops.md -
