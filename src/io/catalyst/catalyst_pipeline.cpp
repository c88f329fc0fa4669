// libmeniscus_catalyst_vtk.so: the ParaView side of the in-situ adaptor. It uses the legacy Catalyst
// API of ParaView 5.11 (Debian 12's paraview 5.11 packages):
//   vtkCPProcessor::Initialize(comm, dir)  ->  AddPipeline(vtkCPPythonPipeline::CreateAndInitializePipeline)
//   per call: vtkCPDataDescription{AddInput, SetTimeData} -> RequestDataDescription -> SetGrid -> CoProcess
//   end: Finalize + Delete, before MPI_Finalize (otherwise OpenMPI aborts the run at exit).
// Each rank passes only its own particles. ParaView's parallel writers and its compositing renderer
// do the rest. The module links only VTK/ParaView and MPI; the run reaches it through catalyst_abi.hpp.
#include <vtkCPDataDescription.h>
#include <vtkCPInputDataDescription.h>
#include <vtkCPProcessor.h>
#include <vtkCPPythonPipeline.h>
#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkIdTypeArray.h>
#include <vtkIntArray.h>
#include <vtkMPI.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkImageData.h>
#include <vtkPolyData.h>
#include <vtkPythonInterpreter.h>
#include <vtkSmartPointer.h>
#include <vtkTypeInt64Array.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "io/catalyst/catalyst_abi.hpp"

namespace meniscus::io::catalyst_abi {
namespace {

// Where component c of a field with `components` entries goes in the padded VTK tuple:
// 2D vectors (x, y) -> (x, y, 0); 2D tensors (xx, xy, yx, yy) -> 3x3 row-major; others unchanged.
int padded_layout(int components, int dim, int* out_index) {
  if (dim == 2 && components == 2) {
    out_index[0] = 0;
    out_index[1] = 1;
    return 3;
  }
  if (dim == 2 && components == 4) {
    out_index[0] = 0;
    out_index[1] = 1;
    out_index[2] = 3;
    out_index[3] = 4;
    return 9;
  }
  for (int c = 0; c < components; ++c) out_index[c] = c;
  return components;
}

// Copies count x components values into count x out_components, component c to out_index[c].
void copy_padded(const double* in, size_t count, int components, const int* out_index, int out_components,
                 double* out) {
  for (size_t p = 0; p < count; ++p) {
    const double* src = in + p * components;
    double* dst = out + p * out_components;
    for (int c = 0; c < out_components; ++c) dst[c] = 0.0;
    for (int c = 0; c < components; ++c) dst[out_index[c]] = src[c];
  }
}

// A rank's particles as VTK data: points padded to 3D, one vertex cell per particle, every field as
// a point array (padded as above), plus `id` (int64) and `material` (int32).
void to_polydata(const Particles& in, vtkPolyData* out) {
  const vtkIdType n = static_cast<vtkIdType>(in.count);
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(n);
  int xyz[3] = {0, 1, 2};
  copy_padded(in.position, in.count, in.dimension, xyz, 3,
              vtkDoubleArray::SafeDownCast(points->GetData())->GetPointer(0));
  out->SetPoints(points);

  vtkNew<vtkIdTypeArray> offsets, connectivity;
  offsets->SetNumberOfValues(n + 1);
  connectivity->SetNumberOfValues(n);
  for (vtkIdType p = 0; p < n; ++p) {
    offsets->SetValue(p, p);
    connectivity->SetValue(p, p);
  }
  offsets->SetValue(n, n);
  vtkNew<vtkCellArray> verts;
  verts->SetData(offsets, connectivity);
  out->SetVerts(verts);

  vtkPointData* pd = out->GetPointData();
  for (const Field& f : in.fields) {
    if (f.components < 1 || f.components > 9) continue;
    int index[9];
    const int out_components = padded_layout(f.components, in.dimension, index);
    vtkNew<vtkDoubleArray> a;
    a->SetName(f.name.c_str());
    a->SetNumberOfComponents(out_components);
    a->SetNumberOfTuples(n);
    copy_padded(f.data, in.count, f.components, index, out_components, a->GetPointer(0));
    pd->AddArray(a);
  }
  vtkNew<vtkTypeInt64Array> ids;
  ids->SetName("id");
  ids->SetNumberOfValues(n);
  vtkNew<vtkIntArray> material;
  material->SetName("material");
  material->SetNumberOfValues(n);
  for (vtkIdType p = 0; p < n; ++p) {
    ids->SetValue(p, in.id[p]);
    material->SetValue(p, in.material[p]);
  }
  pd->AddArray(ids);
  pd->AddArray(material);
  if (pd->HasArray("velocity")) pd->SetActiveVectors("velocity");
}

// A rank's grid block as vtkImageData (point data), with the piece's extent inside the whole box.
void to_image(const Grid& in, vtkImageData* out) {
  out->SetExtent(const_cast<int*>(in.piece));
  out->SetOrigin(in.origin[0], in.origin[1], in.origin[2]);
  out->SetSpacing(in.spacing, in.spacing, in.spacing);
  const vtkIdType n = out->GetNumberOfPoints();
  for (const Field& f : in.fields) {
    vtkNew<vtkDoubleArray> a;
    a->SetName(f.name.c_str());
    a->SetNumberOfComponents(f.components);
    a->SetNumberOfTuples(n);
    std::copy(f.data, f.data + n * f.components, a->GetPointer(0));
    out->GetPointData()->AddArray(a);
  }
  if (out->GetPointData()->HasArray("velocity")) out->GetPointData()->SetActiveVectors("velocity");
}

// The membrane as VTK data: its vertices as points with `velocity`, and triangles (polys) or
// segments (lines). Ranks other than 0 pass an empty surface and give an empty piece.
void to_surface(const Surface& in, vtkPolyData* out) {
  const vtkIdType n = static_cast<vtkIdType>(in.vertices), cells = static_cast<vtkIdType>(in.cells);
  const int k = in.nodes_per_cell;
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(n);
  if (n > 0) std::copy(in.position, in.position + 3 * n, vtkDoubleArray::SafeDownCast(points->GetData())->GetPointer(0));
  out->SetPoints(points);
  vtkNew<vtkIdTypeArray> offsets, connectivity;
  offsets->SetNumberOfValues(cells + 1);
  connectivity->SetNumberOfValues(cells * k);
  for (vtkIdType c = 0; c <= cells; ++c) offsets->SetValue(c, c * k);
  for (vtkIdType i = 0; i < cells * k; ++i) connectivity->SetValue(i, static_cast<vtkIdType>(in.connectivity[i]));
  vtkNew<vtkCellArray> array;
  array->SetData(offsets, connectivity);
  if (k == 2) out->SetLines(array);
  else out->SetPolys(array);
  vtkNew<vtkDoubleArray> velocity;
  velocity->SetName("velocity");
  velocity->SetNumberOfComponents(3);
  velocity->SetNumberOfTuples(n);
  if (n > 0) std::copy(in.velocity, in.velocity + 3 * n, velocity->GetPointer(0));
  out->GetPointData()->AddArray(velocity);
  out->GetPointData()->SetActiveVectors("velocity");
}

// Python source that sets os.environ[name] = value (hex-encoded, so any path survives quoting).
std::string python_setenv(const std::string& name, const std::string& value) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char ch : value) {
    hex += digits[ch >> 4];
    hex += digits[ch & 15];
  }
  return "import os\nos.environ['" + name + "'] = bytes.fromhex('" + hex + "').decode('utf-8')\n";
}

bool all_ranks(MPI_Comm comm, bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

class VtkPipeline final : public Pipeline {
 public:
  VtkPipeline(MPI_Comm comm, std::string channel) : channel_(std::move(channel)) { MPI_Comm_dup(comm, &comm_); }
  ~VtkPipeline() override { finalize(); }

  bool initialize(const std::string& script, const std::string& output_dir, std::string& error) {
    // The pipeline scripts read their extracts folder from here (inputs/catalyst/*.py). Set it before
    // Python starts, and again inside Python when an earlier adaptor already started it.
    setenv("MENISCUS_INSITU_OUTPUT", output_dir.c_str(), 1);
    if (vtkPythonInterpreter::IsInitialized())
      vtkPythonInterpreter::RunSimpleString(python_setenv("MENISCUS_INSITU_OUTPUT", output_dir).c_str());

    processor_ = vtkCPProcessor::New();
    vtkMPICommunicatorOpaqueComm opaque(&comm_);
    // Rank 0 creates the folder; pipelines then run with it as the working folder.
    if (!all_ranks(comm_, processor_->Initialize(opaque, output_dir.c_str()) != 0)) {
      processor_->Delete();
      processor_ = nullptr;
      error = "could not initialize ParaView Catalyst (only one in-situ adaptor may be active per process)";
      return false;
    }
    // Detects the script version ('# script-version: 2', catalyst.Options, ...; 2 when unsure) and
    // imports it on every rank (rank 0 reads the file and broadcasts it).
    vtkSmartPointer<vtkCPPythonPipeline> pipeline =
        vtkCPPythonPipeline::CreateAndInitializePipeline(script.c_str(), 2);
    if (!all_ranks(comm_, pipeline != nullptr)) {
      error = "the Catalyst pipeline '" + script + "' failed to load (see the Python error above)";
      return false;
    }
    processor_->AddPipeline(pipeline);
    return true;
  }

  Status execute(const Particles& particles, const GridSource& grid_source, const SurfaceSource& surface_source,
                 long step, double time, std::string& error) override {
    if (!processor_) return Status::ok;
    vtkNew<vtkCPDataDescription> description;
    description->AddInput(channel_.c_str());
    description->AddInput("grid");
    description->AddInput("membrane");
    description->SetTimeData(time, static_cast<vtkIdType>(step));
    if (!processor_->RequestDataDescription(description)) return Status::ok;
    vtkNew<vtkPolyData> grid;
    to_polydata(particles, grid);
    description->GetInputDescriptionByName(channel_.c_str())->SetGrid(grid);
    // The grid costs a transfer to build: only when a script registered a "grid" producer. Every
    // rank runs the same script, so every rank takes the same branch (the snapshot is collective).
    vtkNew<vtkImageData> image;
    vtkCPInputDataDescription* grid_input = description->GetInputDescriptionByName("grid");
    Grid block;
    if (grid_input->GetIfGridIsNecessary() && grid_source && grid_source(block)) {
      to_image(block, image);
      grid_input->SetGrid(image);
      grid_input->SetWholeExtent(block.whole);
    }
    // The membrane likewise only for a script with a "membrane" producer (gathering it is collective).
    vtkNew<vtkPolyData> membrane;
    vtkCPInputDataDescription* membrane_input = description->GetInputDescriptionByName("membrane");
    Surface surface;
    if (membrane_input->GetIfGridIsNecessary() && surface_source && surface_source(surface)) {
      to_surface(surface, membrane);
      membrane_input->SetGrid(membrane);
    }
    ++calls_;
    const bool ok = processor_->CoProcess(description) != 0;
    // v2 scripts are imported at their first execution, so a script error shows up here. The first
    // call decides, the same on every rank, whether the pipeline works at all.
    if (calls_ == 1 && !all_ranks(comm_, ok)) {
      error = "the Catalyst pipeline failed at its first execution (step " + std::to_string(step) +
              "; see the Python error above)";
      return Status::broken;
    }
    if (!ok) {
      error = "the Catalyst pipeline reported a failure at step " + std::to_string(step);
      return Status::failed;
    }
    return Status::ok;
  }

  void finalize() override {
    if (processor_) {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (finalized) {
        // Too late to tear down cleanly: ParaView would free MPI objects after MPI_Finalize.
        processor_ = nullptr;
        return;
      }
      processor_->Finalize();
      processor_->Delete();
      processor_ = nullptr;
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
  }

  long calls() const override { return calls_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::string channel_;
  vtkCPProcessor* processor_ = nullptr;
  long calls_ = 0;
};

}  // namespace
}  // namespace meniscus::io::catalyst_abi

extern "C" __attribute__((visibility("default"))) meniscus::io::catalyst_abi::Pipeline* meniscus_catalyst_create(
    int abi_version, MPI_Comm comm, const char* script, const char* output_dir, const char* channel,
    std::string* error) {
  using namespace meniscus::io::catalyst_abi;
  if (abi_version != kVersion) {
    *error = "libmeniscus_catalyst_vtk.so was built for another version of meniscus (ABI " +
             std::to_string(kVersion) + ", expected " + std::to_string(abi_version) + "); rebuild";
    return nullptr;
  }
  auto* pipeline = new VtkPipeline(comm, channel);
  if (!pipeline->initialize(script, output_dir, *error)) {
    delete pipeline;
    return nullptr;
  }
  return pipeline;
}
