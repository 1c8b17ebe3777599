#include "analyze/communication.h"

namespace gpuwhy {

CommunicationResult ComputeCommunication(const AnalysisInput&, MetricSet&) { return {}; }

}  // namespace gpuwhy
