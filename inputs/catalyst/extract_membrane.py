# script-version: 2
# Meniscus in-situ pipeline: writes the membrane of `membrane-ruan2021` (Ruan et al. 2021) at every
# call as a parallel PolyData extract, membrane_NNNNNN.pvtp: in 3D its triangles, in 2D its segments
# (lines, z = 0), with the vertices' `velocity`. Rank 0 holds the whole membrane and writes it; the
# other ranks' pieces are empty. Using the "membrane" channel makes the adaptor gather the membrane
# (collective) at each call; scripts that do not name it cost nothing extra.
#
# Deck:   insitu: {script: catalyst/extract_membrane.py, every: 10}
# Files:  <output>/insitu/membrane_000000.pvtp, ... Reading them back with ParaView 5.11 on a current
#         Debian 12 needs the expat shim (docs/insitu.md).
import os

from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403

membrane = PVTrivialProducer(registrationName="membrane")

extract = CreateExtractor("VTP", membrane, registrationName="membrane_vtp")
extract.Trigger = "TimeStep"
extract.Trigger.Frequency = 1
extract.Writer.FileName = "membrane_{timestep:06d}.pvtp"
extract.Writer.DataMode = "Appended"

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
options.GlobalTrigger.Frequency = 1
options.ExtractsOutputDirectory = os.environ.get("MENISCUS_INSITU_OUTPUT", "insitu")
