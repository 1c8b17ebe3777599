// Everything lives in the gpuwhy_cli library so the tests run exactly what users run.
#include "base/huge_pages.h"
#include "cli/cli.h"

int main(int argc, char** argv) {
  gpuwhy::KeepFreedMemoryForReuse();
  return gpuwhy::RunMain(argc, argv);
}
