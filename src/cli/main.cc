// Everything lives in the gpuwhy_cli library so the tests run exactly what users run.
#include "cli/cli.h"

int main(int argc, char** argv) { return gpuwhy::RunMain(argc, argv); }
