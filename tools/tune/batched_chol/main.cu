// Autotuning sweep driver (tools/tune_batched_chol.sh run): `tune_batched_chol` (or `panel`) prints
// the CSV of the left-looking kernel's candidate lists (candidates_*.cu); `tune_batched_chol resident`
// the resident-kernel sweep (resident.cu).
#include <cstdio>
#include <cstring>

namespace starfact::batched::tune {
void sweep_s0();
void sweep_s1();
void sweep_d0();
void sweep_d1();
void sweep_resident();
}  // namespace starfact::batched::tune

int main(int argc, char** argv) {
    using namespace starfact::batched::tune;
    if (argc > 1 && std::strcmp(argv[1], "resident") == 0) {
        sweep_resident();
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "panel") != 0) {
        std::fprintf(stderr, "usage: tune_batched_chol [panel|resident]\n");
        return 2;
    }
    std::printf("prec,n,d,nb,nt,mpb,occ,us,ok\n");
    sweep_s0();
    sweep_s1();
    sweep_d0();
    sweep_d1();
    return 0;
}
