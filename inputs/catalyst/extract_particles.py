# script-version: 2
# Meniscus in-situ pipeline (ParaView Catalyst, v2 script run through the legacy 5.11 adaptor):
# writes the particles of every call as a parallel PolyData extract, particles_NNNNNN.pvtp, with one
# .vtp piece per rank next to it. Every particle field arrives as a point array (velocity, mass, ...,
# id, material); open the .pvtp files in ParaView as one time series.
#
# Deck:   insitu: {script: catalyst/extract_particles.py, every: 10}
# Files:  <output>/insitu/particles_000000.pvtp, ... (insitu.output_directory; the adaptor passes the
#         absolute folder in MENISCUS_INSITU_OUTPUT). The adaptor already thins the calls to
#         insitu.every steps, so the trigger here fires on every call.
#
# Reading the files back with ParaView 5.11 on a current Debian 12 needs the expat shim
# (docs/insitu.md): LD_PRELOAD=/opt/meniscus/lib/libexpat_noreparse.so pvpython ...
import os

from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403 (ParaView's scripting API)

# The adaptor's channel: each rank's particles as vtkPolyData (points in 3D, one vertex each).
particles = PVTrivialProducer(registrationName="particles")

extract = CreateExtractor("VTP", particles, registrationName="particles_vtp")
extract.Trigger = "TimeStep"
extract.Trigger.Frequency = 1
extract.Writer.FileName = "particles_{timestep:06d}.pvtp"
# Raw appended binary: the smallest and fastest files. Each rank writes its own piece.
extract.Writer.DataMode = "Appended"

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1
options.ExtractsOutputDirectory = os.environ.get("MENISCUS_INSITU_OUTPUT", "insitu")
