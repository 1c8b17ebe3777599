// Placeholder: the CLI engineer fills this in.
#include "ingest/importer.h"
