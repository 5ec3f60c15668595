#pragma once
// Slurm's texts for the error codes that cross between the controller and the CLIs (what
// slurm_strerror gives for them): the controller refuses with them and the CLIs tell the cases
// apart by them, so both sides spell them once, here.
namespace drover {

inline constexpr const char* kInvalidJobId = "Invalid job id specified";  // ESLURM_INVALID_JOB_ID
inline constexpr const char* kAlreadyDone =
    "Job/step already completing or completed";  // ESLURM_ALREADY_DONE

}  // namespace drover
